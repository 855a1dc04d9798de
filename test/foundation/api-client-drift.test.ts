import { readFileSync } from "node:fs";
import { parse, print, visit } from "graphql";
import { describe, expect, it } from "vitest";
import { generateApiClient, GENERATED_FILE, readClientSources } from "../../scripts/api-client-codegen.js";

describe("src/api-client/generated/graphql.ts", () => {
  it("matches what schema.graphql and src/api-client/documents/*.graphql generate (run `npm run client:generate` after a change)", async () => {
    const committed = readFileSync(GENERATED_FILE, "utf8");
    expect(await generateApiClient()).toBe(committed);
  });

  it("is not generated when a document asks for a field the schema no longer has: the error names the field", async () => {
    const sources = readClientSources();
    // Evaluator.samplingRate, which documents/fragments.graphql selects, taken out of the schema.
    const schema = print(
      visit(parse(sources.schema), {
        ObjectTypeDefinition: (node) => (node.name.value === "Evaluator" ? { ...node, fields: node.fields?.filter((f) => f.name.value !== "samplingRate") } : undefined),
      }),
    );
    expect(schema).not.toBe(sources.schema);
    await expect(generateApiClient({ ...sources, schema })).rejects.toThrow(/Cannot query field "samplingRate" on type "Evaluator"/);
  });
});
