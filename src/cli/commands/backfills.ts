import type { Command } from "commander";
import { action, type CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { jsonOrFile, keyValues, numberFlag, parseDataFile } from "../inputs.js";
import type { BackfillEstimateRecord, BackfillRecord } from "../../api-client/operations.js";
import { emit, fields, table } from "../output.js";
import { readTimeFlag, sayTimesRead, TIME_FLAG_RULE, type TimeRead } from "../time.js";

const collectFlag = (value: string, previous: string[] = []) => [...previous, value];

/** The filter fields a flag gives, by the API's paths (estimate: the query's `filter`; create: its input's). */
const FILTER_FLAGS = Object.fromEntries(
  Object.entries({ outcomes: "--outcome", scoreName: "--score", scoreEvaluatorId: "--score-evaluator", scoreMin: "--score-min", scoreMax: "--score-max", rootSpansOnly: "--root-spans-only", attributeContains: "--attribute-contains", resourceAttributeEquals: "--resource-attribute" }).flatMap(
    ([field, flag]) => [[`filter.${field}`, flag], [`input.filter.${field}`, flag]],
  ),
);

const percent = (x: number | null | undefined) => (x === null || x === undefined ? "-" : `${(x * 100).toFixed(1)}%`);
/** `--start`/`--end` (and windowStart/windowEnd of a file): see src/cli/time.ts for the rule. */
export { parseTimeFlag } from "../time.js";

/** What a backfill counts, singular: a trace or session evaluator's counts traces or sessions, a span evaluator's spans. */
function unitOf(b: Pick<BackfillRecord, "evaluators">): string {
  return b.evaluators.find((e) => e.source === "evaluator")?.evaluator.target ?? "span";
}

/** One backfill: status, window, progress, then (from get) the summary table and failures. */
export function backfillText(b: BackfillRecord): string {
  const p = b.progress;
  const names = b.evaluators.map((e) => (e.source === "evaluator" ? `${e.evaluator.name} (version ${e.templateVersion.version})` : `${e.evaluator.name} (dependency, version ${e.templateVersion.version})`));
  const unit = `${unitOf(b)}s`;
  const lines = [
    fields([
      ["backfill", `${b.name} (${b.id})`],
      ["status", b.error ? `${b.status}: ${b.error}` : b.status],
      ["evaluators", names.join(", ")],
      ["window", `${b.windowStart} – ${b.windowEnd}`],
      ["selection", `sample rate ${b.sampleRate}, at most ${b.maxSpans} ${unit}${Object.keys(b.filter ?? {}).length ? `, filter ${JSON.stringify(b.filter)}` : ""}${b.rerun ? ", rerun" : ""}`],
      ["progress", `${p.spansDone}/${p.spansTotal} ${unit} (${percent(p.fraction)}), ${p.batchesDone}/${p.batchesTotal} batches, ${p.runsRecorded} runs, ${p.pairsSkipped} skipped, ${p.runsSuperseded} replaced`],
    ]),
  ];
  if (b.summary) lines.push(table(["evaluator", "score", "type", "count", "mean", "pass rate"], b.summary.map((s) => [s.evaluatorName, s.name, s.dataType, s.count, s.mean, percent(s.passRate)])));
  if (b.runsByOutcome?.length) lines.push("runs:", table(["evaluator", "outcome", "count"], b.runsByOutcome.map((r) => [r.evaluatorName, r.outcome, r.count])));
  return lines.join("\n");
}

/** The estimate as a table per evaluator. */
export function estimateText(e: BackfillEstimateRecord): string {
  return [
    `${e.groups !== null && e.groups !== undefined ? `${e.groups} ${e.target}(s)` : `${e.spans} span(s)`} in ${e.windowStart} – ${e.windowEnd}: ${e.runs} run(s) to record${e.reruns ? ` (${e.reruns} replace an earlier run)` : ""}`,
    table(["evaluator", "source", "version", e.groups !== null && e.groups !== undefined ? `${e.target}s matched` : "spans matched", "already evaluated", "to run"], e.evaluators.map((x) => [x.name, x.source, x.templateVersion, x.spansMatched, x.alreadyEvaluated, x.toRun])),
  ].join("\n");
}

/**
 * Polls until the backfill is no longer queued or running: a bar on a terminal, plain lines otherwise.
 * @throws CliError WAIT_TIMEOUT (exit 7) when `timeoutMs` passes first.
 */
async function follow(ctx: CommandContext, id: string, timeoutMs: number | null): Promise<BackfillRecord> {
  const started = Date.now();
  let last = "";
  for (;;) {
    const b = await ctx.ops.getBackfill(id);
    const p = b.progress;
    if (!ctx.output.json) {
      const line = `${b.status}: ${p.spansDone}/${p.spansTotal} ${unitOf(b)}s (${percent(p.fraction)}), ${p.runsRecorded} runs`;
      if (ctx.output.tty) process.stderr.write(`\r${line}   `);
      else if (line !== last) ctx.output.err(line);
      last = line;
    }
    if (b.status !== "queued" && b.status !== "running") {
      if (ctx.output.tty && !ctx.output.json) process.stderr.write("\n");
      return ctx.ops.getBackfill(id, true);
    }
    if (timeoutMs !== null && Date.now() - started > timeoutMs) {
      if (ctx.output.tty && !ctx.output.json) process.stderr.write("\n");
      // Not bad input: the wait the user asked for ended first (exit 7); the backfill goes on.
      throw new CliError("WAIT_TIMEOUT", `backfill "${b.name}" is still ${b.status} after --timeout ${timeoutMs / 1000} s (${p.spansDone}/${p.spansTotal} ${unitOf(b)}s); it goes on: oodle backfills get ${id}`, "--timeout");
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The createBackfill / estimateBackfill input from `-f FILE` and the flags (a flag given wins over
 * the file), with how each time was read (said back when the API refuses the window).
 */
async function backfillInput(ctx: CommandContext): Promise<{ input: Record<string, unknown>; reads: { read: TimeRead; apiField: string }[] }> {
  const reads: { read: TimeRead; apiField: string }[] = [];
  const time = (text: string, field: string, apiField: string) => {
    const read = readTimeFlag(text, field);
    reads.push({ read, apiField });
    return read.iso;
  };
  const o = ctx.options;
  const input: Record<string, unknown> = o.file ? { ...(parseDataFile(o.file, "--file") as Record<string, unknown>) } : {};
  const evaluator = (o.evaluator as string | undefined) ?? (input.evaluator as string | undefined) ?? (input.evaluatorId as string | undefined);
  delete input.evaluator;
  if (!evaluator) throw new CliError("BAD_USER_INPUT", "give the evaluator to run: --evaluator NAME (or evaluator in the file)", "--evaluator");
  input.evaluatorId = (await ctx.ops.getEvaluator(evaluator)).id;
  if (o.name !== undefined) input.name = o.name;
  if (o.start !== undefined) input.windowStart = time(o.start, "--start", "windowStart");
  else if (typeof input.windowStart === "string" || typeof input.windowStart === "number") input.windowStart = time(String(input.windowStart), "windowStart", "windowStart");
  if (input.windowStart === undefined) throw new CliError("BAD_USER_INPUT", "the backfill needs a start: --start -7d (or windowStart in the file)", "--start");
  if (o.end !== undefined) input.windowEnd = time(o.end, "--end", "windowEnd");
  else if (typeof input.windowEnd === "string" || typeof input.windowEnd === "number") input.windowEnd = time(String(input.windowEnd), "windowEnd", "windowEnd");
  if (o.sampleRate !== undefined) input.sampleRate = numberFlag(o.sampleRate, "--sample-rate");
  if (o.maxSpans !== undefined) input.maxSpans = numberFlag(o.maxSpans, "--max-spans");
  if (o.templateVersion !== undefined) input.templateVersion = numberFlag(o.templateVersion, "--template-version");
  if (o.batchSize !== undefined) input.batchSize = numberFlag(o.batchSize, "--batch-size");
  if (o.filter !== undefined) input.filter = jsonOrFile(o.filter, "--filter");
  // Filter flags, merged into --filter (a flag wins over the same key there).
  const filter: Record<string, unknown> = {};
  if (o.outcome !== undefined) filter.outcomes = o.outcome;
  if (o.score !== undefined) filter.scoreName = o.score;
  if (o.scoreEvaluator !== undefined) filter.scoreEvaluatorId = (await ctx.ops.getEvaluator(o.scoreEvaluator)).id;
  if (o.scoreMin !== undefined) filter.scoreMin = numberFlag(o.scoreMin, "--score-min");
  if (o.scoreMax !== undefined) filter.scoreMax = numberFlag(o.scoreMax, "--score-max");
  if (o.rootSpansOnly) filter.rootSpansOnly = true;
  if (o.attributeContains !== undefined) filter.attributeContains = keyValues(o.attributeContains, "--attribute-contains");
  if (o.resourceAttribute !== undefined) filter.resourceAttributeEquals = keyValues(o.resourceAttribute, "--resource-attribute");
  if (Object.keys(filter).length) {
    const given = input.filter;
    if (given !== undefined && (typeof given !== "object" || given === null || Array.isArray(given))) throw new CliError("BAD_USER_INPUT", "must be a JSON object of filter fields", "--filter");
    input.filter = { ...(given as Record<string, unknown> | undefined), ...filter };
  }
  if (o.rerun) input.rerun = true;
  if (o.includeDependencies) input.includeDependencies = true;
  return { input, reads };
}

/**
 * `oodle backfills …` (also `oodle genai backfills …`, Oodle's own CLI path): run an evaluator
 * over spans that already arrived; list, get, create (with --dry-run for the estimate), cancel.
 */
export function backfillsCommand(parent: Command): void {
  const backfills = parent
    .command("backfills")
    .alias("backfill")
    .description("run an evaluator over stored spans of a past window (its live rule, a filter, a sample rate), and follow it; a trace or session evaluator runs once on each trace or session one of whose spans it matches there");

  backfills
    .command("list")
    .description("the workspace's backfills, newest first; the active count and the limit go to stderr")
    .option("--status <status>", "queued, running, completed, cancelled or failed")
    .option("--evaluator <name>", "backfills of this evaluator")
    .action(
      action(async (ctx) => {
        const evaluatorId = ctx.options.evaluator ? (await ctx.ops.getEvaluator(ctx.options.evaluator)).id : undefined;
        const list = await ctx.ops.listBackfills({ status: ctx.options.status, evaluatorId });
        emit(ctx.output, list, () =>
          table(
            ["id", "name", "status", "start", "end", "evaluators", "spans", "runs", "created"],
            list.backfills.map((b) => [b.id, b.name, b.error ? `${b.status}: ${b.error}` : b.status, b.windowStart, b.windowEnd, b.evaluators.map((e) => e.evaluator.name).join(", "), b.spanCount, b.progress.runsRecorded, b.createdAt]),
          ),
        );
        if (!ctx.output.json) ctx.output.err(`${list.active} of at most ${list.maxConcurrent} backfills active`);
      }),
    );

  backfills
    .command("get <id>")
    .description("a backfill's status, progress and summary (runs by outcome, pass rates)")
    .action(
      action(async (ctx, id: string) => {
        const b = await ctx.ops.getBackfill(id, true);
        emit(ctx.output, b, () => backfillText(b));
      }),
    );

  backfills
    .command("create")
    .description("queues a backfill: the evaluator over the spans its live rule matches in the window (at most 90 days, not in the future)")
    .option("-f, --file <file>", "the request as JSON or YAML (evaluator, windowStart, windowEnd, filter, sampleRate, maxSpans, rerun, includeDependencies, …); flags win over it")
    .option("--evaluator <name>", "the evaluator to run (name or id)")
    .option("--name <name>", "defaults to the evaluator's name and the window")
    .option("--start <time>", "start of the window: -7d, -12h, now, ISO 8601, or epoch seconds/ms/µs/ns (told apart by size)")
    .option("--end <time>", "end of the window (default now), as --start")
    .option("--sample-rate <rate>", "share of the selected spans read, above 0 and at most 1 (default 1)")
    .option("--max-spans <n>", "at most this many spans, the earliest first (default 10000); traces or sessions for a trace or session evaluator")
    .option("--template-version <n>", "run this version of the evaluator's template (default: the one it runs now)")
    .option("--filter <json>", "a span filter {spanNamePattern, attributeEquals, attributeContains, resourceAttributeEquals, rootSpansOnly, traceIds, status, outcomes, scoreName, scoreMin, scoreMax, scoreValue} (JSON or @file)")
    .option("--outcome <outcome>", "only spans whose run of the evaluator ended so, e.g. user_error (repeatable; needs --rerun)", collectFlag)
    .option("--score <name>", "only spans with this score of the evaluator (or of --score-evaluator), with --score-min / --score-max")
    .option("--score-evaluator <name>", "the evaluator whose --score is read (default: the one backfilled)")
    .option("--score-min <n>", "--score's numeric value (1/0 for booleans) at least this")
    .option("--score-max <n>", "--score's numeric value (1/0 for booleans) at most this")
    .option("--root-spans-only", "only root spans (no parent)")
    .option("--attribute-contains <key=value>", "only spans whose list attribute contains the value, e.g. tag.tags=vip (repeatable)", collectFlag)
    .option("--resource-attribute <key=value>", "only spans whose resource attribute equals the value, e.g. deployment.environment=production (repeatable)", collectFlag)
    .option("--rerun", "run again on spans it already ran on (the earlier run is kept in history)")
    .option("--include-dependencies", "also run the evaluator's dependencies first")
    .option("--batch-size <n>", "spans per queued job (default 200)")
    .option("--dry-run", "print the estimate (spans, runs per evaluator) and create nothing")
    .option("--wait", "follow it until it finishes, then print the summary")
    .option("--timeout <seconds>", "with --wait: give up following after this long: exit 7 (WAIT_TIMEOUT); the backfill keeps running")
    .addHelpText("after", `\n--start and --end take ${TIME_FLAG_RULE}.`)
    .addHelpText(
      "after",
      '\nExamples:\n  oodle backfills create --evaluator "Refund mentioned" --start -7d --sample-rate 0.1 --dry-run\n  oodle backfills create --evaluator "Refund mentioned" --start -7d --include-dependencies --wait\n  oodle backfills create --evaluator "Refund mentioned" --start -7d --outcome user_error --outcome timeout --rerun   # re-run what failed',
    )
    .action(
      action(async (ctx) => {
        const { input, reads } = await backfillInput(ctx);
        if (ctx.options.dryRun) {
          const estimate = await sayTimesRead(() => ctx.ops.estimateBackfill(input), reads);
          emit(ctx.output, estimate, () => estimateText(estimate));
          return;
        }
        const { backfill, estimate } = await sayTimesRead(() => ctx.ops.createBackfill(input), reads);
        if (!ctx.output.json) {
          for (const e of estimate.evaluators.filter((x) => x.source === "dependency")) ctx.output.err(`also runs ${e.name}: ${e.readBy.join(", ")} reads its scores`);
        }
        if (!ctx.options.wait) {
          emit(ctx.output, backfill, () => `queued backfill "${backfill.name}" (${backfill.id}) over ${backfill.spanCount} ${unitOf(backfill)}(s): ${estimate.runs} run(s)`);
          return;
        }
        if (!ctx.output.json) ctx.output.err(`backfill "${backfill.name}" (${backfill.id}) over ${backfill.spanCount} ${unitOf(backfill)}(s)`);
        const done = await follow(ctx, backfill.id, ctx.options.timeout ? numberFlag(ctx.options.timeout, "--timeout") * 1000 : null);
        emit(ctx.output, done, () => backfillText(done));
        return EXIT.ok;
      }, FILTER_FLAGS),
    );

  backfills
    .command("cancel <id>")
    .description("cancels a queued or running backfill (runs recorded stay; a finished one cannot be cancelled: exit 4)")
    .action(
      action(async (ctx, id: string) => {
        const b = await ctx.ops.cancelBackfill(id);
        emit(ctx.output, b, () => `cancelled backfill "${b.name}" (${b.id}): ${b.progress.runsRecorded} run(s) recorded`);
      }),
    );
}
