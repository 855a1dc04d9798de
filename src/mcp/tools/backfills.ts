import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { backfillText, estimateText } from "../../cli/commands/backfills.js";
import { readTimeValue, sayTimesRead } from "../../cli/time.js";
import type { Operations } from "../../api-client/operations.js";
import { BACKFILL_STATUSES, backfillInputSchema } from "../../modules/backfills/schemas.js";
import { badArguments, toolResult } from "../results.js";

const fields = backfillInputSchema.shape;

/** The arguments of genai_backfills: the module's own field schemas, every one optional but `action`. */
// Strict: a misspelt argument is refused by name, as the CLI and GraphQL refuse it, never dropped.
export const backfillsInput = z.strictObject({
  action: z.enum(["list", "get", "estimate", "create", "cancel"]).describe("list: the workspace's backfills and the active limit; get: one with progress and summary; estimate: what create would do, creating nothing; create: queue a backfill; cancel: stop a queued or running one."),
  id: z.string().describe("get / cancel: the backfill's global id.").optional(),
  evaluator: z.string().describe("estimate / create: the evaluator to run, by name or global id; list: only its backfills.").optional(),
  // A string or, as JSON allows, an epoch number: read by the CLI's rule (readTimeValue), so 1733000000000 and "1733000000000" are the same instant.
  windowStart: z.union([z.string(), z.number()]).describe("estimate / create: start of the window: -7d, -12h, now, ISO 8601, or epoch seconds, milliseconds, microseconds or nanoseconds (a string or a number, told apart by size: 10, 13, 16 or 19 digits).").optional(),
  windowEnd: z.union([z.string(), z.number()]).describe("End of the window (default now), as windowStart; at most 90 days after the start, not in the future.").optional(),
  name: fields.name,
  templateVersion: fields.templateVersion,
  filter: fields.filter,
  sampleRate: fields.sampleRate,
  maxSpans: fields.maxSpans,
  rerun: fields.rerun,
  includeDependencies: fields.includeDependencies,
  batchSize: fields.batchSize,
  status: z.enum(BACKFILL_STATUSES).describe("list: only backfills in this state.").optional(),
});

/** The tool's arguments. */
export type BackfillsArgs = z.infer<typeof backfillsInput>;

const PASSED = ["name", "templateVersion", "filter", "sampleRate", "maxSpans", "rerun", "includeDependencies", "batchSize"] as const;

/** genai_backfills: backfills over the same GraphQL operations as the CLI (`oodle backfills`). */
export const backfillsTool = {
  name: "genai_backfills",
  description:
    "Run an Oodle code evaluator over spans that already arrived (its live rule, a window of at most 90 days, a span filter, a sample rate, a maximum), and follow it; a trace or session evaluator runs once per trace or session one of whose spans it matches in the window (maxSpans then counts those; no includeDependencies). " +
    'Estimate first: {"action": "estimate", "evaluator": "Refund mentioned", "windowStart": "-7d", "sampleRate": 0.1}; then {"action": "create", …}, {"action": "get", "id": …}, {"action": "cancel", "id": …}. ' +
    "Spans it already ran on are skipped unless rerun (the earlier run is kept as history); includeDependencies runs the evaluators it reads first. " +
    'Re-run what failed: {"action": "create", "evaluator": "Refund mentioned", "windowStart": "-7d", "rerun": true, "filter": {"outcomes": ["user_error", "timeout"]}}; by score: "filter": {"scoreName": "relevance", "scoreMax": 0.5}.',
  inputSchema: backfillsInput,
  async run(ops: Operations, args: BackfillsArgs): Promise<CallToolResult> {
    const raw = args as Record<string, unknown>;
    const input = async () => {
      const issues = [
        ...(args.evaluator ? [] : [{ path: "evaluator", message: "is required: the evaluator to run, by name or id" }]),
        ...(args.windowStart !== undefined && args.windowStart !== "" ? [] : [{ path: "windowStart", message: "is required: the start of the window, e.g. -7d" }]),
      ];
      if (issues.length) throw badArguments(issues);
      const start = readTimeValue(args.windowStart!, "windowStart");
      const end = args.windowEnd !== undefined && args.windowEnd !== "" ? readTimeValue(args.windowEnd, "windowEnd") : undefined;
      const input: Record<string, unknown> = {
        evaluatorId: (await ops.getEvaluator(args.evaluator!)).id,
        windowStart: start.iso,
        ...(end ? { windowEnd: end.iso } : {}),
        ...Object.fromEntries(PASSED.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]])),
      };
      // The score filter's evaluator by name or global id, as `evaluator`.
      if (args.filter?.scoreEvaluatorId !== undefined) input.filter = { ...args.filter, scoreEvaluatorId: (await ops.getEvaluator(args.filter.scoreEvaluatorId)).id };
      // A refused window says what windowStart / windowEnd were read as.
      return { input, reads: [{ read: start, apiField: "windowStart" }, ...(end ? [{ read: end, apiField: "windowEnd" }] : [])] };
    };
    const needId = () => {
      if (!args.id) throw badArguments([{ path: "id", message: `is required: the backfill to ${args.action}` }]);
      return args.id;
    };
    switch (args.action) {
      case "list": {
        const evaluatorId = args.evaluator ? (await ops.getEvaluator(args.evaluator)).id : undefined;
        const list = await ops.listBackfills({ status: args.status, evaluatorId });
        const lines = list.backfills.map((b) => `${b.name} (${b.id}): ${b.status}, ${b.progress.runsRecorded} runs over ${b.spanCount} spans`);
        return toolResult(list, [...lines, `${list.active} of at most ${list.maxConcurrent} backfills active`].join("\n"));
      }
      case "get": {
        const b = await ops.getBackfill(needId(), true);
        return toolResult(b, backfillText(b));
      }
      case "estimate": {
        const { input: request, reads } = await input();
        const e = await sayTimesRead(() => ops.estimateBackfill(request), reads);
        return toolResult(e, estimateText(e));
      }
      case "create": {
        const { input: request, reads } = await input();
        const { backfill, estimate } = await sayTimesRead(() => ops.createBackfill(request), reads);
        const also = estimate.evaluators.filter((x) => x.source === "dependency").map((x) => `; also runs ${x.name} (read by ${x.readBy.join(", ")})`).join("");
        return toolResult({ ...backfill, estimate }, `queued backfill "${backfill.name}" (${backfill.id}) over ${backfill.spanCount} spans: ${estimate.runs} runs${also}`);
      }
      case "cancel": {
        const b = await ops.cancelBackfill(needId());
        return toolResult(b, `cancelled backfill "${b.name}": ${b.progress.runsRecorded} runs recorded`);
      }
    }
  },
};
