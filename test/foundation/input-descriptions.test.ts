import { isInputObjectType, type GraphQLInputObjectType } from "graphql";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describedBy, descriptionOf } from "../../src/graphql/input-descriptions.js";
import { schema } from "../../src/graphql-schema.js";
import { createDatasetInputSchema } from "../../src/modules/datasets/schemas.js";
import { tryCodeInputSchema } from "../../src/modules/try-code/schemas.js";
import { createTemplateInputSchema, updateTemplateInputSchema } from "../../src/modules/templates/schemas.js";
import { compareExperimentsInputSchema, createExperimentInputSchema, experimentItemFilterSchema } from "../../src/modules/experiments/schemas.js";
import { createEvaluatorInputSchema, updateEvaluatorInputSchema } from "../../src/modules/evaluators/schemas.js";
import { backfillInputSchema, backfillSpanFilterSchema, listBackfillsInputSchema } from "../../src/modules/backfills/schemas.js";
import { deprecateInputSchema, publishInputSchema } from "../../src/modules/shared-libraries/schemas.js";
import { spanFilterFieldsSchema } from "../../src/modules/spans/schemas.js";
import { dependencyInputSchema, gateInputSchema } from "../../src/modules/dependencies/schemas.js";
import { postedScoreSchema } from "../../src/modules/posted-scores/schemas.js";
import { deleteModelPriceInputSchema, setModelPriceInputSchema } from "../../src/modules/judges/price-schemas.js";
import { backfillsInput } from "../../src/mcp/tools/backfills.js";
import { manageEvaluatorsInput } from "../../src/mcp/tools/manage-evaluators.js";

type Described = { shape: Record<string, z.ZodType> };

/** Every field of every input below reads its description from this zod schema. */
const CONVERTED: [typeName: string, zodSchema: Described, fields: string[]][] = [
  ["ExperimentItemFilter", experimentItemFilterSchema, ["evaluatorId", "scoreName", "minValue", "maxValue", "passed", "category", "outcome"]],
  ["CreateExperimentInput", createExperimentInputSchema, ["name", "evaluatorIds", "templateIds", "batchSize", "dependencyWaitSeconds"]],
  ["CreateDatasetInput", createDatasetInputSchema, ["name", "description"]],
  ["CreateTemplateInput", createTemplateInputSchema, ["name", "description", "sourceCode", "params", "libraryPins"]],
  ["UpdateTemplateInput", updateTemplateInputSchema, ["name", "description", "sourceCode", "params", "libraryPins"]],
  ["TryCodeInput", tryCodeInputSchema, Object.keys(tryCodeInputSchema.shape)],
  [
    "CreateEvaluatorInput",
    createEvaluatorInputSchema,
    ["name", "kind", "templateId", "pinnedVersion", "params", "enabled", "spanKind", "spanNamePattern", "attributeEquals", "samplingRate", "isolation", "maxInvocationsPerHour", "dependencies", "target", "groupSettings"],
  ],
  ["UpdateEvaluatorInput", updateEvaluatorInputSchema, ["templateId", "pinnedVersion", "params", "mergeParams", "maxInvocationsPerHour", "dependencies", "target", "groupSettings"]],
  ["BackfillInput", backfillInputSchema, Object.keys(backfillInputSchema.shape)],
  ["CreateBackfillInput", backfillInputSchema, Object.keys(backfillInputSchema.shape)],
  ["BackfillSpanFilterInput", backfillSpanFilterSchema, Object.keys(backfillSpanFilterSchema.shape)],
  ["PublishSharedLibraryVersionInput", publishInputSchema, Object.keys(publishInputSchema.shape)],
  ["DeprecateSharedLibraryInput", deprecateInputSchema, ["note", "deprecated"]],
  ["SpanFilter", spanFilterFieldsSchema, Object.keys(spanFilterFieldsSchema.shape)],
  ["PostedScoreInput", postedScoreSchema, ["value", "higherIsBetter"]],
  ["DependencyGateInput", gateInputSchema, ["score", "at"]],
  ["EvaluatorDependencyInput", dependencyInputSchema, ["evaluator", "gate"]],
  ["SetModelPriceInput", setModelPriceInputSchema, ["model", "inputUsdPerMillion", "outputUsdPerMillion"]],
  ["DeleteModelPriceInput", deleteModelPriceInputSchema, ["model"]],
];

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
    for (const [typeName, zodSchema, fields] of CONVERTED) {
      const graphqlFields = inputType(typeName).getFields();
      for (const field of fields) {
        expect(descriptionOf(zodSchema.shape[field]!), `${typeName}.${field}`).toBeTruthy();
        expect(graphqlFields[field]!.description, `${typeName}.${field}`).toBe(descriptionOf(zodSchema.shape[field]!));
      }
    }
    const queryArg = (query: string, arg: string) => schema.getQueryType()!.getFields()[query]!.args.find((a) => a.name === arg)!;
    const limit = queryArg("compareExperiments", "limit");
    expect(limit.description).toBe("At most this many changes listed (all are counted), up to 1000.");
    expect(descriptionOf(compareExperimentsInputSchema.shape.limit)).toBe(limit.description);
    expect(queryArg("backfills", "evaluatorId").description).toBe(descriptionOf(listBackfillsInputSchema.shape.evaluatorId));
  });

  it("no field of those inputs has a zod text that its GraphQL field does not read", () => {
    // A text added to the zod schema later (or a field renamed) shows up here, not as a silent second declaration.
    for (const [typeName, zodSchema] of CONVERTED) {
      for (const [name, field] of Object.entries(inputType(typeName).getFields())) {
        const text = zodSchema.shape[name] && descriptionOf(zodSchema.shape[name]);
        if (text) expect(field.description, `${typeName}.${name}`).toBe(text);
      }
    }
    expect(inputType("BackfillInput").getFields().maxSpans!.description).toBe("At most this many spans, the earliest first (default 10,000; at most 100,000); for a trace or session evaluator, this many traces or sessions.");
  });

  it("the JSON Schema an MCP tool would publish carries the same texts", () => {
    const json = z.toJSONSchema(experimentItemFilterSchema, { io: "input" }) as { properties: Record<string, { description?: string }> };
    expect(json.properties.scoreName!.description).toBe("Items with a score of this name.");
    expect(json.properties.outcome!.description).toBe("Items with a run of this outcome.");
  });

  it("the MCP tools built on these schemas publish the GraphQL texts", () => {
    type Json = { description?: string; properties?: Record<string, Json>; items?: Json; anyOf?: Json[] };
    const backfills = z.toJSONSchema(backfillsInput, { io: "input", unrepresentable: "any" }) as Json;
    const backfillInput = inputType("BackfillInput").getFields();
    for (const field of ["name", "templateVersion", "filter", "sampleRate", "maxSpans", "rerun", "includeDependencies", "batchSize"]) {
      expect(backfills.properties![field]!.description, `genai_backfills.${field}`).toBe(backfillInput[field]!.description);
    }
    expect(backfills.properties!.filter!.properties!.status!.description).toBe(inputType("BackfillSpanFilterInput").getFields().status!.description);
    const manage = z.toJSONSchema(manageEvaluatorsInput, { io: "input", unrepresentable: "any" }) as Json;
    const dependency = manage.properties!.dependencies!.items!;
    expect(dependency.properties!.evaluator!.description).toBe(inputType("EvaluatorDependencyInput").getFields().evaluator!.description);
    expect(dependency.properties!.gate!.description).toBe(inputType("EvaluatorDependencyInput").getFields().gate!.description);
  });
});
