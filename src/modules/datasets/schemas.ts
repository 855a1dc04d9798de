import { z } from "zod";
import { nameSchema } from "../../lib/text-rules.js";
import { typeError } from "../../lib/validation.js";

/** Shared input schemas of the datasets feature (GraphQL, CLI and MCP use the same). */

/** A dataset's name: unique in the workspace. */
export const datasetNameSchema = nameSchema(200);

/** A dataset's description: free text. */
export const datasetDescriptionSchema = z.string({ error: typeError("a string") }).max(2000, "must be at most 2000 characters");

/** The input of createDataset. */
export const createDatasetInputSchema = z.object({
  name: datasetNameSchema.describe("Unique in the workspace."),
  description: datasetDescriptionSchema.optional().describe("Free text, at most 2000 characters."),
});

/** A tool call of an item: `{name, arguments}` (arguments an object or a JSON string). */
export const toolCallSchema = z
  .object({
    name: z.string({ error: typeError("a string") }).min(1, "must not be empty"),
    arguments: z.unknown().optional(),
  })
  .loose();

/** A span's, its parent's or its trace's id on an item's span: a string or a number. */
const spanIdSchema = z.union([z.string(), z.number()], { error: "must be a string or a number" }).nullish();

/**
 * One span of an item's trace (docs/document.md § From a dataset item: `trace.spans`): the seven
 * keys of a span document, and the ids and metadata that trace and session evaluators read (an
 * item exported from a stored trace or session holds them); other keys are kept.
 */
export const traceSpanSchema = z
  .object({
    name: z.string({ error: typeError("a string") }),
    kind: z.string({ error: typeError("a string") }).optional(),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    attributes: z.record(z.string(), z.unknown(), { error: "must be an object" }).nullish(),
    start_time: z.union([z.string(), z.number()]).nullish(),
    end_time: z.union([z.string(), z.number()]).nullish(),
    span_id: spanIdSchema,
    parent_span_id: spanIdSchema,
    trace_id: spanIdSchema,
    metadata: z.record(z.string(), z.unknown(), { error: "must be an object" }).nullish(),
  })
  .loose();

/**
 * One line of an items.jsonl file: the common shape of shared/data (`id`, `input`, `output`,
 * `expected_output`, `context`, `tool_calls`, `expected_tool_calls`, `metadata`) plus an optional
 * `trace` (`{spans: [...]}` or a list of spans) for the application's own spans. Every key is
 * optional; an unknown key is refused (it is most likely a typo, and would be lost silently).
 */
export const itemLineSchema = z
  .object({
    id: z.union([z.string(), z.number()], { error: "must be a string or a number" }).nullish(),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    expected_output: z.unknown().optional(),
    context: z.unknown().optional(),
    tool_calls: z.array(toolCallSchema, { error: "must be a list of {name, arguments}" }).nullish(),
    expected_tool_calls: z.array(z.unknown(), { error: "must be a list" }).nullish(),
    metadata: z.record(z.string(), z.unknown(), { error: "must be an object" }).nullish(),
    trace: z
      .union([z.object({ spans: z.array(z.unknown()) }).loose(), z.array(z.unknown())], {
        error: "must be {spans: [...]} or a list of spans",
      })
      .nullish()
      .superRefine((trace, ctx) => {
        // Each span checked apart from the union, so a bad span is named (`trace[0].span_id`), not the whole trace.
        const [spans, at] = Array.isArray(trace) ? [trace, []] : [trace?.spans ?? [], ["spans"]];
        spans.forEach((span, i) => {
          const checked = traceSpanSchema.safeParse(span);
          for (const issue of checked.error?.issues ?? []) ctx.addIssue({ code: "custom", path: [...at, i, ...issue.path], message: issue.message });
        });
      }),
  })
  .strict();

/** A parsed items.jsonl line. */
export type ItemLine = z.infer<typeof itemLineSchema>;

/** What to do with a bad line: `abort` imports nothing (the default), `skip` imports the rest. */
export const BAD_LINE_MODES = ["abort", "skip"] as const;

/** One of {@link BAD_LINE_MODES}. */
export type BadLineMode = (typeof BAD_LINE_MODES)[number];
