import { z } from "zod";
import { typeError } from "../../lib/validation.js";
import { BACKFILL_STATUSES, RUN_OUTCOMES, type BackfillStatus } from "../../lib/closed-lists.js";
import { attributeContainsSchema, attributeEqualsSchema, resourceAttributeEqualsSchema, rootSpansOnlySchema, spanNamePatternSchema } from "../evaluators/schemas.js";
import { nameSchema } from "../../lib/text-rules.js";

/** Shared input schemas of the backfills feature (GraphQL, CLI and MCP use the same). */

export { BACKFILL_STATUSES, type BackfillStatus };
/** States in which a backfill still has work (they count against the workspace's limit). */
export const ACTIVE_BACKFILL_STATUSES: readonly BackfillStatus[] = ["queued", "running"];

/** The longest window a backfill reads: 90 days (as Oodle's `backfills create`). */
export const MAX_WINDOW_MS = 90 * 24 * 3600 * 1000;
/** How far past the server's clock a window may end (clock skew between client and server). */
export const WINDOW_END_SKEW_MS = 60_000;
/** Spans read by default, and at most. */
export const DEFAULT_MAX_SPANS = 10_000;
export const MAX_MAX_SPANS = 100_000;
/** Spans per queued job by default (as an experiment's items). */
export const DEFAULT_BACKFILL_BATCH_SIZE = 200;
/** Queued or running backfills a workspace may have at once. */
export const MAX_ACTIVE_BACKFILLS = 2;
/** Evaluators (the one asked for plus its dependencies) one backfill may run. */
export const MAX_BACKFILL_EVALUATORS = 20;

/** The span statuses (OpenTelemetry status codes as stored). */
const SPAN_STATUSES = ["unset", "ok", "error"] as const;

/** The span filter of a backfill: every given part must hold, on top of the evaluator's own rule. */
export const backfillSpanFilterSchema = z
  .object({
    spanNamePattern: spanNamePatternSchema.describe("A glob over span names (* any characters, ? one).").optional(),
    attributeEquals: attributeEqualsSchema.describe("Span attributes that must be equal: {key: string | number | boolean}.").optional(),
    traceIds: z.array(z.string().min(1, "must not be empty").max(256), { error: typeError("a list of trace ids") }).max(1000, "must have at most 1000 trace ids").describe("Only spans of these traces.").optional(),
    status: z.enum(SPAN_STATUSES, { error: `must be one of ${SPAN_STATUSES.join(", ")}` }).describe("Only spans with this OpenTelemetry status: unset, ok or error.").optional(),
    attributeContains: attributeContainsSchema.describe('List attributes (tags) that must contain the value: {key: string | number | boolean}, e.g. {"tag.tags": "vip"}.').optional(),
    resourceAttributeEquals: resourceAttributeEqualsSchema.describe('Resource attributes that must be equal, e.g. {"deployment.environment": "production"}.').optional(),
    rootSpansOnly: rootSpansOnlySchema.describe("Only root spans (no parent span).").optional(),
    outcomes: z
      .array(z.enum(RUN_OUTCOMES, { error: `must be one of ${RUN_OUTCOMES.join(", ")}` }), { error: typeError("a list of run outcomes") })
      .min(1, "must not be empty")
      .describe(`Only spans whose current run of the evaluator ended with one of these outcomes (${RUN_OUTCOMES.join(", ")}): re-run what failed. Needs rerun: true.`)
      .optional(),
    scoreName: z.string({ error: typeError("a string") }).min(1, "must not be empty").max(256, "must be at most 256 characters").describe("Only spans with a score of this name, written by the evaluator (or by scoreEvaluatorId).").optional(),
    scoreEvaluatorId: z.string({ error: typeError("an evaluator id") }).describe("The evaluator whose score scoreName is read (default: the evaluator backfilled).").optional(),
    scoreMin: z.number({ error: typeError("a number") }).describe("… whose numeric value (1/0 for booleans) is at least this.").optional(),
    scoreMax: z.number({ error: typeError("a number") }).describe("… whose numeric value (1/0 for booleans) is at most this.").optional(),
    scoreValue: z.union([z.string(), z.number(), z.boolean()], { error: "must be a string, a number or a boolean" }).describe('… whose value equals this (true, 0.5, "label").').optional(),
  })
  .strict()
  .superRefine((filter, ctx) => {
    const needName = (["scoreEvaluatorId", "scoreMin", "scoreMax", "scoreValue"] as const).filter((k) => filter[k] !== undefined);
    if (filter.scoreName === undefined) for (const key of needName) ctx.addIssue({ code: "custom", path: [key], message: "needs scoreName: the score it applies to" });
    if (filter.scoreMin !== undefined && filter.scoreMax !== undefined && filter.scoreMin > filter.scoreMax) ctx.addIssue({ code: "custom", path: ["scoreMin"], message: "must not be above scoreMax" });
  });

/** A backfill span filter. */
export type BackfillSpanFilter = z.infer<typeof backfillSpanFilterSchema>;

/** A count with thousands separators (10,000), as the descriptions write them. */
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

const instant = (what: string) =>
  z.union([z.date(), z.iso.datetime({ offset: true, error: `must be an ISO 8601 date-time (${what})` }).transform((s) => new Date(s))], { error: typeError("an ISO 8601 date-time") });

/** What selects a backfill's spans and how it runs: the input of createBackfill and estimateBackfill. */
export const backfillInputSchema = z
  .object({
    evaluatorId: z.string({ error: typeError("an evaluator id") }).describe("The evaluator to run: a span evaluator runs on each chosen span, a trace or session evaluator once on each chosen trace or session (one of whose spans its rule matches in the window)."),
    name: nameSchema(200).describe("Defaults to the evaluator's name and the window to the second (UTC), with a suffix (2), (3), … when the workspace already has that name.").optional(),
    templateVersion: z.number({ error: typeError("a whole number") }).int("must be a whole number").min(1, "must be 1 or more").describe("Run this version of its template (default: the version it runs now: its pin, else the latest).").optional(),
    windowStart: instant("windowStart").describe("Spans that started at or after this."),
    windowEnd: instant("windowEnd").describe("Spans that started before this (default now): at most 90 days after windowStart, not in the future.").optional(),
    filter: backfillSpanFilterSchema.describe("A span filter on top of the evaluator's rule.").optional(),
    sampleRate: z.number({ error: typeError("a number") }).gt(0, "must be above 0").max(1, "must be at most 1").describe("The share of the selected spans read, above 0 and at most 1 (default 1): a deterministic draw per span (per trace or session for a trace or session evaluator).").optional(),
    maxSpans: z.number({ error: typeError("a whole number") }).int("must be a whole number").min(1, "must be 1 or more").max(MAX_MAX_SPANS, `must be at most ${MAX_MAX_SPANS}`).describe(`At most this many spans, the earliest first (default ${thousands(DEFAULT_MAX_SPANS)}; at most ${thousands(MAX_MAX_SPANS)}); for a trace or session evaluator, this many traces or sessions.`).optional(),
    rerun: z.boolean({ error: typeError("true or false") }).describe("Run again on spans it already ran on; the earlier run is kept in Run.history (default false: they are skipped).").optional(),
    includeDependencies: z.boolean({ error: typeError("true or false") }).describe("Also run its code dependencies first, transitively (each where its own rule matches). Not for a trace or session evaluator: it reads its span dependencies' current scores.").optional(),
    batchSize: z.number({ error: typeError("a whole number") }).int("must be a whole number").min(1, "must be 1 or more").max(1000, "must be at most 1000").describe(`Spans per queued job (default ${DEFAULT_BACKFILL_BATCH_SIZE}).`).optional(),
  })
  .strict();

/** A createBackfill / estimateBackfill input. */
export type BackfillInput = z.input<typeof backfillInputSchema>;
/** The parsed input. */
export type ParsedBackfillInput = z.output<typeof backfillInputSchema>;

/** The input of backfill(id) and cancelBackfill. */
export const backfillIdInputSchema = z.object({ id: z.string({ error: typeError("a backfill id") }) });

/** The input of the backfills list. */
export const listBackfillsInputSchema = z.object({
  status: z.enum(BACKFILL_STATUSES, { error: `must be one of ${BACKFILL_STATUSES.join(", ")}` }).optional(),
  evaluatorId: z.string().optional().describe("Backfills of this evaluator (the one asked for)."),
});
