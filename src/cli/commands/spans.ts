import type { Command } from "commander";
import { action } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { numberFlag, parseJsonFlag, readJsonLines } from "../inputs.js";
import type { SpanFilterInput, SpanRecord } from "../../api-client/operations.js";
import { cell, emit, table } from "../output.js";
import { parseTimeFlag, TIME_FLAG_RULE } from "../time.js";

/** A span's scores in one cell: `Refund mentioned/keyword_check=true, …`. */
function scoresCell(s: SpanRecord): string {
  return s.scores.map((x) => `${x.evaluator.name}/${x.name}=${cell(x.value)}`).join(", ") || "-";
}

/**
 * `oodle spans ingest FILE.jsonl` (one span a line, sent in batches: the API takes up to 1,000 a
 * call) and `oodle spans list` (the `spans` query's filters; both ids of each span).
 */
export function spansCommand(program: Command): void {
  const spans = program.command("spans").description("spans: what the application did, scored live by the evaluators that match");

  spans
    .command("list")
    .description("the workspace's spans, newest start first, with their global id (what explain and try take), trace id, span id and scores")
    .option("--trace <traceId>", "only the spans of this trace")
    .option("--name <glob>", "span names matching a glob (* and ?)")
    .option("--kind <kind>", "chat, tool, agent, retrieval or other")
    .option("--from <time>", "spans that started at or after (as backfills' --start)")
    .option("--to <time>", "spans that started before")
    .option("--evaluator <name>", "spans with a run of this evaluator (name or id)")
    .option("--outcome <outcome>", "spans with a run of this outcome (of --evaluator, when given): ok, user_error, timeout, …")
    .option("--score-name <name>", "spans with a score of this name")
    .option("--score-value <json>", 'whose value equals this (JSON: true, 0.5, "label")')
    .option("--score-min <n>", "whose numeric value (1/0 for booleans) is at least this")
    .option("--score-max <n>", "whose numeric value is at most this")
    .option("--first <n>", "spans per page (at most 100)", "20")
    .option("--after <cursor>", "the page after this cursor (printed on stderr when there are more)")
    .addHelpText(
      "after",
      `\n--from and --to take ${TIME_FLAG_RULE}.\n\nExamples:\n  oodle spans list --trace t1\n  oodle spans list --evaluator "Refund mentioned" --outcome user_error --from -1d\n  oodle genai evaluators explain "Refund mentioned" <ID>   # or t1:s1, or s1 --trace t1`,
    )
    .action(
      action(async (ctx) => {
        const o = ctx.options;
        const filter: SpanFilterInput = {};
        if (o.trace !== undefined) filter.traceId = o.trace;
        if (o.name !== undefined) filter.name = o.name;
        if (o.kind !== undefined) filter.kind = o.kind;
        const from = o.from !== undefined ? parseTimeFlag(o.from, "--from") : undefined;
        const to = o.to !== undefined ? parseTimeFlag(o.to, "--to") : undefined;
        if (from !== undefined) filter.from = from;
        if (to !== undefined) filter.to = to;
        // --from at or after --to matches nothing: refused, naming both and what they were read as.
        if (from !== undefined && to !== undefined && from >= to) {
          throw new CliError("BAD_USER_INPUT", `must be after --from (--from "${o.from}" was read as ${from}, --to "${o.to}" as ${to}): no span starts at or after --from and before --to`, "--to");
        }
        if (o.evaluator !== undefined) filter.evaluatorId = (await ctx.ops.getEvaluator(o.evaluator)).id;
        if (o.outcome !== undefined) filter.outcome = o.outcome;
        if (o.scoreName !== undefined) filter.scoreName = o.scoreName;
        if (o.scoreValue !== undefined) filter.scoreValue = parseJsonFlag(o.scoreValue, "--score-value");
        if (o.scoreMin !== undefined) filter.scoreMin = numberFlag(o.scoreMin, "--score-min");
        if (o.scoreMax !== undefined) filter.scoreMax = numberFlag(o.scoreMax, "--score-max");
        const page = await ctx.ops.listSpans(filter, { first: numberFlag(o.first, "--first"), after: o.after });
        emit(ctx.output, page, () =>
          page.spans.length
            ? table(["id", "trace id", "span id", "name", "kind", "status", "start", "scores"], page.spans.map((s) => [s.id, s.traceId, s.spanId, s.name, s.kind, s.status, s.startTime, scoresCell(s)]))
            : "no spans match",
        );
        if (page.hasNextPage && !ctx.output.json) ctx.output.err(`more spans: --after ${page.endCursor}`);
      }),
    );

  spans
    .command("ingest <file>")
    .description("sends the spans of a JSON Lines file (ingestSpans shape, one a line) and queues the evaluations they match")
    .option("--batch-size <n>", "spans per call (at most 1000)", "500")
    .addHelpText("after", '\nA line: {"traceId": "t1", "spanId": "s1", "name": "chat", "input": [{"role": "user", "content": "Hi"}], "output": "Hello", "attributes": {"app.channel": "support"}}\nExit 2 when a span was refused (the others are stored).')
    .action(
      action(async (ctx, file: string) => {
        const all = readJsonLines(file, "file");
        const size = numberFlag(ctx.options.batchSize, "--batch-size");
        const result = { stored: 0, created: 0, evaluationsQueued: 0, spans: [] as { line: number; id: string; created: boolean }[], rejected: [] as { line: number; issues: { path: string; message: string }[] }[] };
        for (let start = 0; start < all.length; start += size) {
          const batch = await ctx.ops.ingestSpans(all.slice(start, start + size));
          result.evaluationsQueued += batch.evaluationsQueued;
          for (const s of batch.spans) {
            result.stored++;
            if (s.created) result.created++;
            result.spans.push({ line: start + s.index + 1, id: s.id, created: s.created });
          }
          for (const r of batch.rejected) result.rejected.push({ line: start + r.index + 1, issues: r.issues });
        }
        emit(ctx.output, result, () =>
          [
            `stored ${result.stored} span(s) (${result.created} new), ${result.evaluationsQueued} evaluation(s) queued`,
            ...result.rejected.map((r) => `rejected line ${r.line}: ${r.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")}`),
          ].join("\n"),
        );
        return result.rejected.length ? EXIT.badInput : EXIT.ok;
      }),
    );
}
