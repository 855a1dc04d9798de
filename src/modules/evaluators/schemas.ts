import { z } from "zod";
import { evaluatorLimitsSchema } from "../../execution/index.js";
import { ISOLATIONS, SPAN_KINDS, TARGET_TYPES } from "../../lib/closed-lists.js";
import { notBlank, nameSchema, visibleText } from "../../lib/text-rules.js";
import { typeError } from "../../lib/validation.js";
import { ownKeysRecord } from "../../lib/own-keys-record.js";
import { dependenciesInputSchema } from "../dependencies/schemas.js";
import { evaluatorKindSchema } from "./kinds.js";
import { groupSettingsInputSchema } from "./group-settings.js";

/** The kind traits, for the GraphQL adapter (which imports only its service and schemas). */
export { DEFAULT_KIND, kindTraits } from "./kinds.js";

/** Shared input schemas of the evaluators feature (GraphQL, CLI and MCP use the same). */

/** Group settings (trace and session evaluators), for the GraphQL adapter and the other transports. */
export { checkGroupSettings, groupSettingsInputSchema, settingsOf, type GroupSettings, type GroupSettingsInput } from "./group-settings.js";
export { GROUP_CAP_SPECS } from "./group-caps.js";
export { BLOCKED_REASON_PREFIX, MAX_BLOCKED_REASON_CHARS } from "./blocking.js";
export { COMPLETION_SPECS, DEFAULT_END_MARKER, DEFAULT_SESSION_KEYS, formatDuration, GroupSettingError } from "./group-completion.js";
export { GROUP_TARGET_TYPES, TARGET_TYPES, type GroupTargetType, type TargetType } from "../../lib/closed-lists.js";

/** The span kinds an evaluator can run on (the span model's kinds, declared in src/lib/closed-lists.ts). */
export { SPAN_KINDS, type SpanKind } from "../../lib/closed-lists.js";

/** An evaluator's name: unique among the workspace's live evaluators (the name rule of src/lib/text-rules.ts). */
export const evaluatorNameSchema = nameSchema(100);

/** The kind of span the evaluator runs on. */
export const spanKindSchema = z.enum(SPAN_KINDS, { error: `must be one of ${SPAN_KINDS.join(", ")}` });

/** A glob over span names: `*` any characters, `?` one character; null matches every name. */
export const spanNamePatternSchema = z
  .string({ error: typeError("a string") })
  .min(1, "must not be empty (use null to match every name)")
  .max(256, "must be at most 256 characters")
  .superRefine(notBlank)
  .superRefine(visibleText)
  .nullable();

/** Longest string value of an `attributeEquals` condition (a span attribute compared for equality). */
export const MAX_ATTRIBUTE_VALUE_CHARS = 1_000;

/**
 * Span attributes that must be equal: flat key → string (at most 1,000 characters), finite number
 * or boolean; at most 32. Every key is an ordinary key (`__proto__`, `constructor` included:
 * src/lib/own-keys-record.ts), as span attributes are.
 */
export const attributeEqualsSchema = ownKeysRecord(
    z.string().min(1, "attribute keys must not be empty").max(256, "attribute keys must be at most 256 characters").superRefine(notBlank).superRefine(visibleText),
    z.union([z.string().max(MAX_ATTRIBUTE_VALUE_CHARS, `must be at most ${MAX_ATTRIBUTE_VALUE_CHARS} characters`), z.number().finite("must be a finite number"), z.boolean()], {
      error: "must be a string, a number or a boolean",
    }),
    { error: "must be an object of attribute key to value" },
  ).refine((value) => Object.keys(value).length <= 32, "must have at most 32 attributes");

/** Span attributes holding a list that must contain a value (tags): flat key → string, number or boolean; at most 32. */
export const attributeContainsSchema = attributeEqualsSchema;

/** Resource attributes that must be equal (`deployment.environment`, `service.name`): key → string, number or boolean; at most 32. */
export const resourceAttributeEqualsSchema = attributeEqualsSchema;

/** True: the evaluator runs on root spans only (spans without a parent). */
export const rootSpansOnlySchema = z.boolean({ error: typeError("true or false") });

/** The sandbox limits an evaluator asks for ({cpuTimeMs?, wallTimeMs?, memoryBytes?} within the ceilings); null clears them. */
export const limitsSchema = evaluatorLimitsSchema.nullable();

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

/**
 * What the evaluator runs on: each matching span (`span`, the default), a whole trace (`trace`) or a
 * whole session (`session`), once it is done. Fixed at creation.
 */
export const targetSchema = z.enum(TARGET_TYPES, { error: `must be one of ${TARGET_TYPES.join(", ")}` });

/**
 * A trace or session evaluator's completion rules and caps as asked (every key optional; checked
 * against the target and the floors and ceilings by checkGroupSettings); null or {} takes every default.
 */
export const groupSettingsSchema = groupSettingsInputSchema.nullable();

/** A judge evaluator's spend cap: US dollars of judge calls per rolling hour (null: none). */
export const maxCostPerHourUsdSchema = z.number({ error: typeError("a number") }).finite("must be a finite number").positive("must be more than 0").max(1_000_000, "must be at most 1,000,000").nullable();

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
  attributeContains: attributeContainsSchema,
  resourceAttributeEquals: resourceAttributeEqualsSchema,
  rootSpansOnly: rootSpansOnlySchema,
  samplingRate: samplingRateSchema,
  isolation: isolationSchema,
  maxInvocationsPerHour: maxInvocationsPerHourSchema,
  connectionId: z.string({ error: typeError("a string") }),
  maxCostPerHourUsd: maxCostPerHourUsdSchema,
  limits: limitsSchema,
  dependencies: dependenciesInputSchema,
  target: targetSchema,
  groupSettings: groupSettingsSchema,
};

/**
 * The input of createEvaluator: a name, and a template for a code evaluator (the default kind);
 * an external evaluator (scores posted with submitScores) has no template. The rest has defaults.
 * The descriptions are those of the GraphQL input (and any other transport that reads them).
 */
export const createEvaluatorInputSchema = z.object({
  name: evaluatorNameSchema.describe("Unique among the workspace's live evaluators."),
  kind: evaluatorKindSchema.optional().describe("code (default: give a code template), judge (give an llm template and a connection; taken from the template when omitted) or external (no template: scores posted with submitScores)."),
  templateId: evaluatorFields.templateId.optional().describe("The template (or give templateName); required for a code evaluator."),
  pinnedVersion: pinnedVersionSchema.optional().describe("Stay on this template version; omitted or null follows the latest."),
  params: z.unknown().optional().describe("Setting values: setting name → value."),
  enabled: evaluatorFields.enabled.optional().describe("Defaults to true."),
  spanKind: spanKindSchema.optional().describe("Defaults to chat."),
  spanNamePattern: spanNamePatternSchema.optional().describe("A glob over span names (* and ?); omitted or null matches every name."),
  attributeEquals: attributeEqualsSchema.optional().describe("Span attributes that must be equal: key → string, number or boolean."),
  attributeContains: attributeContainsSchema.optional().describe('Span attributes holding a list (or a JSON string of one) that must contain the value: key → string, number or boolean, e.g. {"tag.tags": "vip"}.'),
  resourceAttributeEquals: resourceAttributeEqualsSchema
    .optional()
    .describe('Resource attributes (OTLP resource, or ingestSpans resourceAttributes) that must be equal, e.g. {"deployment.environment": "production"}.'),
  rootSpansOnly: rootSpansOnlySchema.optional().describe("Run on root spans only (no parent span). Defaults to false."),
  samplingRate: samplingRateSchema.optional().describe("0 to 1; defaults to 1."),
  isolation: isolationSchema.optional().describe("warm (default) or strict: a fresh forked process per item, slower."),
  maxInvocationsPerHour: maxInvocationsPerHourSchema.optional().describe("Runs on live spans per rolling hour, at most (1 or more); null or absent: no cap."),
  connectionId: evaluatorFields.connectionId.optional().describe("A judge evaluator's connection (or give connectionName): the provider, key and concurrency its calls use. Required for a judge."),
  maxCostPerHourUsd: maxCostPerHourUsdSchema.optional().describe("A judge evaluator's spend cap: US dollars of judge calls on live targets per rolling hour; past it runs are skipped with the reason. Null or absent: no cap."),
  limits: limitsSchema
    .optional()
    .describe("Sandbox limits of one item it asks for: {cpuTimeMs?, wallTimeMs?, memoryBytes?}, each within the sandbox's ceilings (sandboxCapabilities.limits); a key absent takes its template's, then the default."),
  dependencies: dependenciesInputSchema
    .optional()
    .describe("Evaluators it runs after, each optionally a gate; unknown ones and cycles are refused. A span evaluator cannot depend on a trace or session evaluator; a trace or session evaluator depends on span evaluators only (it reads their scores on each span of the group)."),
  target: targetSchema
    .optional()
    .describe(
      "What it runs on: span (default: each matching span), trace (a whole trace, once it is done) or session (the traces sharing a session key, once the conversation is done). Fixed once created. " +
        "For a trace or session the rule (spanKind, spanNamePattern, attributes, rootSpansOnly, samplingRate) picks the groups: a trace or session is taken when ANY of its spans matches (with rootSpansOnly, when its root span matches). An external evaluator runs on spans only.",
    ),
  groupSettings: groupSettingsSchema
    .optional()
    .describe("Trace and session evaluators: when the group is done (end marker, quiet period, maximum wait) and the caps on what the code is passed; an absent key takes its default (Evaluator.groupSettings shows the values that apply). Refused on a span evaluator."),
});

/**
 * The input of updateEvaluator: only the given fields change. `params` replaces the values, or
 * with `mergeParams: true` is merged into them (see `mergeParamValues`).
 */
export const updateEvaluatorInputSchema = z
  .object({
    ...evaluatorFields,
    templateId: evaluatorFields.templateId.describe("Move to another template (values are checked against it)."),
    pinnedVersion: pinnedVersionSchema.describe("null follows the latest version."),
    params: z.unknown().describe("Replaces the values (null clears them), or with mergeParams is merged into them."),
    mergeParams: z
      .boolean({ error: typeError("true or false") })
      .describe("Merge params into the values (JSON Merge Patch: a key set to null removes that value) instead of replacing them. Default false."),
    maxInvocationsPerHour: maxInvocationsPerHourSchema.describe("Null removes the cap."),
    connectionId: evaluatorFields.connectionId.describe("A judge evaluator: move to another connection of the workspace."),
    maxCostPerHourUsd: maxCostPerHourUsdSchema.describe("A judge evaluator's spend cap in US dollars per rolling hour; null removes it."),
    limits: limitsSchema.describe("Replaces its limits {cpuTimeMs?, wallTimeMs?, memoryBytes?} (null or {} removes them: the template's, then the defaults, apply)."),
    attributeContains: attributeContainsSchema.describe("Replaces the list-attribute conditions: key → value the list must contain ({} removes them)."),
    resourceAttributeEquals: resourceAttributeEqualsSchema.describe("Replaces the resource-attribute conditions: key → value ({} removes them)."),
    rootSpansOnly: rootSpansOnlySchema.describe("Run on root spans only (no parent span)."),
    dependencies: dependenciesInputSchema.describe("Replaces the dependencies ([] or null removes them all)."),
    target: targetSchema.describe("Cannot change: create a new evaluator for another target."),
    groupSettings: groupSettingsSchema.describe("Trace and session evaluators: replaces the group settings asked (null or {}: every default applies)."),
  })
  .partial();

/** A createEvaluator input. */
export type CreateEvaluatorInput = z.input<typeof createEvaluatorInputSchema>;
/** An updateEvaluator input. */
export type UpdateEvaluatorInput = z.input<typeof updateEvaluatorInputSchema>;
