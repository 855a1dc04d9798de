import { TARGET_TYPES } from "../../lib/closed-lists.js";
import { evaluatorLimitsSchema } from "../../execution/evaluator-limits.js";
import { z } from "zod";
import { typeError } from "../../lib/validation.js";

/** Shared input schemas of try_code (GraphQL, CLI and MCP use the same). */

/** Largest inline sample document, in bytes of JSON. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** The keys of the sample document (docs/document.md § The sample document); every one optional. */
export const sampleDocumentSchema = z
  .object({
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    attributes: z.record(z.string(), z.unknown(), { error: "must be an object of attribute key to value" }).optional(),
    expected_output: z.unknown().optional(),
    trace: z
      .object({ spans: z.array(z.record(z.string(), z.unknown(), { error: "each span must be an object" }), { error: "must be a list of spans" }) }, { error: 'must be {"spans": [...]}' })
      // A trace document's own keys (trace_id, span_count, capped, completion: docs/document.md § From a trace) pass as they are.
      .passthrough()
      .optional(),
    session: z
      .object(
        { id: z.string({ error: "must be a string" }), traces: z.array(z.record(z.string(), z.unknown(), { error: "each trace must be an object" }), { error: "must be a list of traces" }) },
        { error: 'must be {"id": ..., "traces": [...]} (docs/document.md § From a session)' },
      )
      .passthrough()
      .optional(),
    scores: z
      .record(z.string(), z.record(z.string(), z.unknown(), { error: "must be an object of score name to value" }), { error: "must be an object of evaluator name to scores" })
      .optional(),
    metadata: z.record(z.string(), z.unknown(), { error: "must be an object" }).optional(),
  }, { error: (issue) => (issue.code === "invalid_type" ? "must be an object (the sample document)" : undefined) })
  .strict();

/** Library pins of a draft: library name → version. */
export const libraryPinsSchema = z.record(z.string(), z.number().int().min(1, "must be 1 or more"), { error: "must be an object of library name to version" });

/**
 * The input of tryCode, once a transport decoded its ids: which code (sourceCode with paramSpecs
 * and libraryPins, a starterId, or a templateId at templateVersion), the setting values, and one
 * sample (spanId, span, document or datasetItemId). The shapes of the JSON fields and which
 * combinations are allowed are checked by the service, every problem at once.
 */
export const tryCodeInputSchema = z.object({
  sourceCode: z.string({ error: typeError("a string") }).nullish().describe("Draft code; its settings come from paramSpecs. Checked as on template save."),
  judge: z.unknown().optional().describe("A draft judge (an llm template's judge: {messages, output, maxOutputTokens?, cacheTtlSeconds?}); its settings come from paramSpecs. Needs a connection."),
  connectionId: z.string({ error: typeError("a connection id") }).nullish().describe("The connection a judge (a draft judge or an llm template) calls; required for one, refused for code."),
  paramSpecs: z.unknown().optional().describe("The draft's settings (a template's params list); only with sourceCode or judge."),
  libraryPins: z.unknown().optional().describe("The draft's shared-library pins: name → version; only with sourceCode."),
  starterId: z.string({ error: typeError("a string") }).nullish().describe("Run a built-in starter with its settings."),
  templateId: z.string({ error: typeError("a template id") }).nullish().describe("Run a saved template with its settings."),
  templateVersion: z.number({ error: typeError("a whole number") }).int("must be a whole number").nullish().describe("The template version (default: the latest); only with templateId."),
  params: z.unknown().optional().describe("Setting values: checked against the settings used; absent ones take their defaults."),
  spanId: z.string({ error: typeError("a span id") }).nullish().describe("Sample: a stored span (its stored trace is ctx.trace)."),
  span: z.unknown().optional().describe("Sample: an inline span in the ingestSpans shape (ctx.trace holds it alone)."),
  document: z.unknown().optional().describe("Sample: an inline dataset item, as the sample document or as a line of items.jsonl (mapped as dataset import maps it)."),
  datasetItemId: z.string({ error: typeError("a dataset item id") }).nullish().describe("Sample: a stored dataset item (as an experiment runs it)."),
  traceId: z.string({ error: typeError("a trace id") }).min(1, "must not be empty").nullish().describe("Sample: a stored trace, as a trace evaluator sees it (every span in ctx.trace.spans, the root's conversation)."),
  sessionId: z.string({ error: typeError("a session key") }).min(1, "must not be empty").nullish().describe("Sample: a stored session, as a session evaluator sees it (its traces in ctx.session, every turn in text.turns(ctx))."),
  target: z
    .enum(TARGET_TYPES, { error: `must be one of ${TARGET_TYPES.join(", ")}` })
    .nullish()
    .describe("With document or datasetItemId: the item as an evaluator of this target sees it in an experiment (trace: ctx.trace of the item's spans; session: ctx.session of its traces or its conversation; default span)."),
  groupSettings: z.unknown().optional().describe("With traceId or sessionId, or target trace or session: the caps (maxSpans, maxTurns, maxDocumentBytes) and sessionKeyAttribute an evaluator would use; absent ones take their defaults."),
  limits: evaluatorLimitsSchema
    .nullish()
    .describe("The sandbox limits to run with, as an evaluator asks for them: {cpuTimeMs?, wallTimeMs?, memoryBytes?} within the ceilings; a key absent takes the template's, then the default."),
});

/** A parsed tryCode input. */
export type TryCodeInput = z.output<typeof tryCodeInputSchema>;
