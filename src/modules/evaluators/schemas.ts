import { z } from "zod";
import { ISOLATIONS, SPAN_KINDS } from "../../lib/closed-lists.js";
import { typeError } from "../../lib/validation.js";
import { dependenciesInputSchema, evaluatorKindSchema } from "../dependencies/schemas.js";

/** Shared input schemas of the evaluators feature (GraphQL, CLI and MCP use the same). */

/** The span kinds an evaluator can run on (the span model's kinds, declared in src/lib/closed-lists.ts). */
export { SPAN_KINDS, type SpanKind } from "../../lib/closed-lists.js";

/** An evaluator's name: unique among the workspace's live evaluators. */
export const evaluatorNameSchema = z
  .string({ error: typeError("a string") })
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters");

/** The kind of span the evaluator runs on. */
export const spanKindSchema = z.enum(SPAN_KINDS, { error: `must be one of ${SPAN_KINDS.join(", ")}` });

/** A glob over span names: `*` any characters, `?` one character; null matches every name. */
export const spanNamePatternSchema = z
  .string({ error: typeError("a string") })
  .min(1, "must not be empty (use null to match every name)")
  .max(256, "must be at most 256 characters")
  .nullable();

/** Span attributes that must be equal: flat key → string, number or boolean; at most 32. */
export const attributeEqualsSchema = z
  .record(
    z.string().min(1, "attribute keys must not be empty").max(256, "attribute keys must be at most 256 characters"),
    z.union([z.string(), z.number(), z.boolean()], { error: "must be a string, a number or a boolean" }),
    { error: "must be an object of attribute key to value" },
  )
  .refine((value) => Object.keys(value).length <= 32, "must have at most 32 attributes");

/** The share of matching spans that are evaluated. */
export const samplingRateSchema = z
  .number({ error: typeError("a number") })
  .min(0, "must be between 0 and 1")
  .max(1, "must be between 0 and 1");

/** How the evaluator's items run in the sandbox: warm runners or a fresh process per item. */
export const isolationSchema = z.enum(ISOLATIONS, { error: `must be one of ${ISOLATIONS.join(", ")}` });

/** At most this many runs on live spans per rolling hour; null: no cap. */
export const maxInvocationsPerHourSchema = z.number({ error: typeError("a whole number") }).int("must be a whole number").min(1, "must be 1 or more").max(10_000_000, "must be at most 10,000,000").nullable();

/** A template version to stay on; null follows the latest version. */
export const pinnedVersionSchema = z.number({ error: typeError("a whole number") }).int("must be a whole number").min(1, "must be 1 or more").nullable();

/** The fields an evaluator input may change (every one optional). `params` is checked against the template. */
const evaluatorFields = {
  name: evaluatorNameSchema,
  templateId: z.string({ error: typeError("a string") }),
  pinnedVersion: pinnedVersionSchema,
  params: z.unknown(),
  enabled: z.boolean({ error: typeError("true or false") }),
  spanKind: spanKindSchema,
  spanNamePattern: spanNamePatternSchema,
  attributeEquals: attributeEqualsSchema,
  samplingRate: samplingRateSchema,
  isolation: isolationSchema,
  maxInvocationsPerHour: maxInvocationsPerHourSchema,
  dependencies: dependenciesInputSchema,
};

/**
 * The input of createEvaluator: a name, and a template for a code evaluator (the default kind);
 * an external evaluator (scores posted with submitScores) has no template. The rest has defaults.
 */
export const createEvaluatorInputSchema = z.object({
  ...evaluatorFields,
  kind: evaluatorKindSchema.optional(),
  templateId: evaluatorFields.templateId.optional(),
  dependencies: dependenciesInputSchema.optional(),
  pinnedVersion: pinnedVersionSchema.optional(),
  params: z.unknown().optional(),
  enabled: evaluatorFields.enabled.optional(),
  spanKind: spanKindSchema.optional(),
  spanNamePattern: spanNamePatternSchema.optional(),
  attributeEquals: attributeEqualsSchema.optional(),
  samplingRate: samplingRateSchema.optional(),
  isolation: isolationSchema.optional(),
  maxInvocationsPerHour: maxInvocationsPerHourSchema.optional(),
});

/**
 * The input of updateEvaluator: only the given fields change. `params` replaces the values, or
 * with `mergeParams: true` is merged into them (see `mergeParamValues`).
 */
export const updateEvaluatorInputSchema = z.object({ ...evaluatorFields, mergeParams: z.boolean({ error: typeError("true or false") }) }).partial();

/** A createEvaluator input. */
export type CreateEvaluatorInput = z.input<typeof createEvaluatorInputSchema>;
/** An updateEvaluator input. */
export type UpdateEvaluatorInput = z.input<typeof updateEvaluatorInputSchema>;
