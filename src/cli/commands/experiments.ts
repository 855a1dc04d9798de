import type { Command } from "commander";
import { action, type CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { numberFlag } from "../inputs.js";
import type { ExperimentRecord } from "../../api-client/operations.js";
import { emit, table } from "../output.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration flag in whole seconds: `600`, `90s`, `10m`, `2h`, `7d`. @throws CliError naming the flag. */
export function durationSeconds(text: string, flag: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new CliError("BAD_USER_INPUT", `must be a whole number of seconds, or one with a unit: 90s, 10m, 2h, 7d (got "${text}")`, flag);
  return Number(match[1]) * UNIT_SECONDS[match[2] || "s"]!;
}
const percent = (x: number | null | undefined) => (x === null || x === undefined ? "-" : `${(x * 100).toFixed(1)}%`);

/**
 * What the pending items wait for, for the progress line: ` (2 waiting for posted scores of
 * "Human label" until 2026-12-02T10:00:00.000Z)`; "" when nothing waits.
 */
export function waitingText(p: ExperimentRecord["progress"]): string {
  if (!p.waiting) return "";
  const names = [...new Set(p.waits.flatMap((w) => w.waitingFor.map((f) => `"${f.name}"`)))].join(", ");
  return ` (${p.waiting} waiting for posted scores of ${names} until ${p.waitingUntil}; then they run without them)`;
}

/** The summary table: per evaluator and score, count, mean and pass rate; then failures. */
export function summaryText(e: ExperimentRecord): string {
  const p = e.progress;
  const lines = [
    `experiment "${e.name}" ${e.status}: ${p.total} item(s), ${p.done} done, ${p.failed} failed, ${p.skipped} skipped, ${p.pending} pending${waitingText(p)}`,
    ...p.waits.map((w) => `  ${w.evaluatorName}: ${w.items} item(s), each of which ${w.reason}`),
    table(["evaluator", "score", "type", "count", "mean", "pass rate"], (e.summary ?? []).map((s) => [s.evaluatorName, s.name, s.dataType, s.count, s.mean, percent(s.passRate)])),
  ];
  if (e.failures?.length) lines.push("failures:", table(["evaluator", "outcome", "count"], e.failures.map((f) => [f.evaluatorName, f.outcome, f.count])));
  return lines.join("\n");
}

/**
 * The comparison's sentence in the table's own counts: the items that changed, then the score
 * changes as the columns add them up (improved, regressed, no direction) and the run outcome
 * changes, which belong to no score row (changeCount counts both).
 */
export function changesSentence(c: { changedItems: number; changeCount: number; scores: { improved: number; regressed: number; changed: number }[] }): string {
  const sum = (k: "improved" | "regressed" | "changed") => c.scores.reduce((n, s) => n + s[k], 0);
  const [improved, regressed, other] = [sum("improved"), sum("regressed"), sum("changed")];
  const outcomes = c.changeCount - improved - regressed - other;
  if (c.changeCount === 0) return "no item changed";
  return (
    `${c.changedItems} item(s) changed: ${improved + regressed + other} score change(s) (${improved} improved, ${regressed} regressed, ${other} with no direction)` +
    (outcomes ? ` and ${outcomes} run outcome change(s)` : "")
  );
}

/**
 * Polls the experiment until it completes or is cancelled: a bar on a terminal, plain lines otherwise.
 * @throws CliError WAIT_TIMEOUT (exit 7) when `timeoutMs` passes first.
 */
async function follow(ctx: CommandContext, id: string, timeoutMs: number | null): Promise<ExperimentRecord> {
  const started = Date.now();
  let last = "";
  for (;;) {
    const e = await ctx.ops.getExperiment(id);
    const p = e.progress;
    if (!ctx.output.json) {
      if (ctx.output.tty) {
        const width = 30;
        const filled = Math.round(p.fraction * width);
        const waiting = p.waiting ? `  ${p.waiting} waiting until ${p.waitingUntil}` : "";
        process.stderr.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${percent(p.fraction).padStart(6)}  ${p.runsRecorded}/${p.runsTotal} runs  ${e.status}${waiting}   `);
      } else {
        const line = `${e.status}: ${p.runsRecorded}/${p.runsTotal} runs (${percent(p.fraction)}), ${p.done} done, ${p.failed} failed, ${p.pending} pending${waitingText(p)}`;
        if (line !== last) ctx.output.err(line);
        last = line;
      }
    }
    if (e.status === "completed" || e.status === "cancelled") {
      if (ctx.output.tty && !ctx.output.json) process.stderr.write("\n");
      return ctx.ops.getExperiment(id, true);
    }
    if (timeoutMs !== null && Date.now() - started > timeoutMs) {
      if (ctx.output.tty && !ctx.output.json) process.stderr.write("\n");
      // Not bad input: the wait the user asked for ended first (exit 7); the experiment goes on.
      const where = `${p.runsRecorded}/${p.runsTotal} runs, ${p.pending} item(s) pending`;
      throw new CliError("WAIT_TIMEOUT", `experiment "${e.name}" is still ${e.status} after --timeout ${timeoutMs / 1000} s (${where}); it goes on: oodle experiments get ${id}`, "--timeout");
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** `oodle experiments …`. */
export function experimentsCommand(program: Command): void {
  const experiments = program.command("experiments").description("experiments: evaluators run over a dataset as queued jobs");

  experiments
    .command("run")
    .description("runs evaluators (with their values) and templates (with their defaults) over a dataset, shows progress, then the summary table")
    .requiredOption("--dataset <name>", "the dataset (name or id)")
    .option("--evaluator <name>", "an evaluator to run (repeatable)", collect)
    .option("--template <name>", "a template to run with its defaults (repeatable)", collect)
    .option("--name <name>")
    .option("--batch-size <n>", "items per queued job")
    .option("--dependency-wait <duration>", "how long evaluators wait for posted scores of external evaluators: seconds, or 90s, 10m, 2h, 7d (default 7d; 0: do not wait)")
    .option("--no-wait", "print the experiment and return at once")
    .option("--timeout <seconds>", "give up following after this long: exit 7 (WAIT_TIMEOUT); the experiment keeps running")
    .addHelpText("after", "\nExample:\n  oodle experiments run --dataset xstest --evaluator 'Refusal' --template 'Keyword check'")
    .action(
      action(async (ctx) => {
        const o = ctx.options;
        const dataset = await ctx.ops.getDataset(o.dataset);
        const evaluatorIds = await Promise.all(((o.evaluator as string[]) ?? []).map(async (n) => (await ctx.ops.getEvaluator(n)).id));
        const templateIds = await Promise.all(((o.template as string[]) ?? []).map(async (n) => (await ctx.ops.getTemplate(n)).id));
        const created = await ctx.ops.createExperiment({
          datasetId: dataset.id,
          evaluatorIds,
          templateIds,
          name: o.name,
          batchSize: o.batchSize ? numberFlag(o.batchSize, "--batch-size") : undefined,
          dependencyWaitSeconds: o.dependencyWait !== undefined ? durationSeconds(o.dependencyWait, "--dependency-wait") : undefined,
        });
        if (!o.wait) {
          emit(ctx.output, created, () => `queued experiment "${created.name}" (${created.id}) over ${created.itemCount} item(s)`);
          return;
        }
        if (!ctx.output.json) ctx.output.err(`experiment "${created.name}" (${created.id}) over ${created.itemCount} item(s)`);
        const done = await follow(ctx, created.id, o.timeout ? numberFlag(o.timeout, "--timeout") * 1000 : null);
        emit(ctx.output, done, () => summaryText(done));
        return EXIT.ok;
      }, { dependencyWaitSeconds: "--dependency-wait" }),
    );

  experiments
    .command("get <id>")
    .description("an experiment's status, progress and summary")
    .action(
      action(async (ctx, id: string) => {
        const e = await ctx.ops.getExperiment(id, true);
        emit(ctx.output, e, () => summaryText(e));
      }),
    );

  experiments
    .command("list")
    .action(
      action(async (ctx) => {
        const list = await ctx.ops.listExperiments();
        emit(ctx.output, list, () => table(["id", "name", "dataset", "status", "items", "created"], list.map((e) => [e.id, e.name, e.dataset.name, e.status, e.itemCount, e.createdAt])));
      }),
    );

  experiments
    .command("compare <base> <candidate>")
    .description("two experiments (each by name or id) on the same dataset: per score the means and pass rates with deltas, and the items that changed")
    .option("--limit <n>", "changes listed", "20")
    .action(
      action(async (ctx, base: string, candidate: string) => {
        const [baseId, candidateId] = [await ctx.ops.experimentId(base, "base"), await ctx.ops.experimentId(candidate, "candidate")];
        const c = await ctx.ops.compareExperiments(baseId, candidateId, numberFlag(ctx.options.limit, "--limit"));
        const signed = (x: number | null, f: (x: number) => string) => (x === null ? "-" : `${x >= 0 ? "+" : ""}${f(x)}`);
        emit(ctx.output, c, () =>
          [
            table(
              ["evaluator", "score", "base mean", "cand. mean", "Δ mean", "base pass", "cand. pass", "Δ pass", "improved", "regressed", "no direction"],
              c.scores.map((s) => [s.evaluatorName, s.name, s.base?.mean, s.candidate?.mean, signed(s.meanDelta, (x) => x.toFixed(3)), percent(s.base?.passRate), percent(s.candidate?.passRate), signed(s.passRateDelta, (x) => `${(x * 100).toFixed(1)}pp`), s.improved, s.regressed, s.changed]),
            ),
            changesSentence(c),
            ...(c.changes.length ? [table(["item", "evaluator", "score", "direction", "base", "candidate"], c.changes.map((ch) => [ch.externalId ?? ch.position, ch.evaluatorName, ch.scoreName ?? "(outcome)", ch.direction, ch.scoreName ? ch.baseValue : ch.baseOutcome, ch.scoreName ? ch.candidateValue : ch.candidateOutcome]))] : []),
            ...(c.changes.length < c.changeCount ? [`(the first ${c.changes.length} of ${c.changeCount} changes; a larger --limit lists more)`] : []),
          ].join("\n"),
        );
      }),
    );
}
