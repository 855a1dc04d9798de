import { isInputObjectType, type GraphQLInputObjectType } from "graphql";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describedBy, descriptionOf } from "../../src/graphql/input-descriptions.js";
import { schema } from "../../src/graphql/schema.js";
import { createDatasetInputSchema } from "../../src/modules/datasets/schemas.js";
import { tryCodeInputSchema } from "../../src/modules/try-code/schemas.js";
import { createTemplateInputSchema, updateTemplateInputSchema } from "../../src/modules/templates/schemas.js";
import { compareExperimentsInputSchema, createExperimentInputSchema, experimentItemFilterSchema } from "../../src/modules/experiments/schemas.js";

function inputType(name: string): GraphQLInputObjectType {
  const type = schema.getType(name);
  if (!isInputObjectType(type)) throw new Error(`${name} is not an input type`);
  return type;
}

describe("input descriptions declared once, in the zod schemas", () => {
  it("reads a description given before or after optional, nullish, default and transform", () => {
    expect(descriptionOf(z.string().describe("before").optional())).toBe("before");
    expect(descriptionOf(z.string().optional().describe("after"))).toBe("after");
    expect(descriptionOf(z.number().describe("deep").nullish().transform((v) => v ?? 1))).toBe("deep");
    expect(descriptionOf(z.boolean().default(false))).toBeUndefined();
  });

  it("refuses, when the schema is built, a field that is missing or has no description", () => {
    const d = describedBy(z.object({ described: z.string().describe("yes"), bare: z.string() }));
    expect(d("described")).toEqual({ description: "yes" });
    expect(() => d("bare")).toThrow('input field "bare" has no .describe() in its zod schema');
    expect(() => (d as (f: string) => unknown)("absent")).toThrow('input field "absent" has no .describe()');
  });

  it("the GraphQL input fields carry the zod schemas' texts", () => {
    const pairs: [string, { shape: Record<string, z.ZodType> }, string[]][] = [
      ["ExperimentItemFilter", experimentItemFilterSchema, ["evaluatorId", "scoreName", "minValue", "maxValue", "passed", "category", "outcome"]],
      ["CreateExperimentInput", createExperimentInputSchema, ["name", "evaluatorIds", "templateIds", "batchSize", "dependencyWaitSeconds"]],
      ["CreateDatasetInput", createDatasetInputSchema, ["name", "description"]],
      ["CreateTemplateInput", createTemplateInputSchema, ["name", "description", "sourceCode", "params", "libraryPins"]],
      ["UpdateTemplateInput", updateTemplateInputSchema, ["name", "description", "sourceCode", "params", "libraryPins"]],
      ["TryCodeInput", tryCodeInputSchema, Object.keys(tryCodeInputSchema.shape)],
    ];
    for (const [typeName, zodSchema, fields] of pairs) {
      const graphqlFields = inputType(typeName).getFields();
      for (const field of fields) {
        expect(descriptionOf(zodSchema.shape[field]!), `${typeName}.${field}`).toBeTruthy();
        expect(graphqlFields[field]!.description, `${typeName}.${field}`).toBe(descriptionOf(zodSchema.shape[field]!));
      }
    }
    const limit = schema.getQueryType()!.getFields().compareExperiments!.args.find((a) => a.name === "limit")!;
    expect(limit.description).toBe("At most this many changes listed (all are counted), up to 1000.");
    expect(descriptionOf(compareExperimentsInputSchema.shape.limit)).toBe(limit.description);
  });

  it("the JSON Schema an MCP tool would publish carries the same texts", () => {
    const json = z.toJSONSchema(experimentItemFilterSchema, { io: "input" }) as { properties: Record<string, { description?: string }> };
    expect(json.properties.scoreName!.description).toBe("Items with a score of this name.");
    expect(json.properties.outcome!.description).toBe("Items with a run of this outcome.");
  });
});
