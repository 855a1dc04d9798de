import { readFileSync } from "node:fs";
import { printSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../src/graphql-schema.js";

describe("schema.graphql", () => {
  it("matches the schema the code builds (run `npm run schema:print` after a change)", () => {
    const committed = readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8");
    expect(printSchema(schema) + "\n").toBe(committed);
  });
});
