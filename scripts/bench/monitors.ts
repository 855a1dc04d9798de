/**
 * `npm run bench -- monitors`: monitors evaluated per minute on a database of 1 million live runs.
 *
 * 1. Loads BENCH_RUNS runs (default 1,000,000: spans, runs and one BOOLEAN score each) of
 *    BENCH_EVALUATORS evaluators (default 100) spread over the last 8 days, with INSERT … SELECT
 *    over generate_series (scripts/bench/monitors-data.ts), then ANALYZE.
 * 2. Creates BENCH_MONITORS monitors (default 1,000: ten per evaluator, every metric, condition and
 *    baseline, windows of 5 minutes to 7 days) through the service, as the API does.
 * 3. Times BENCH_ROUNDS cadences (default 3): each round moves the injected clock one cadence on,
 *    queues every monitor's job and waits until a worker (BENCH_WORKERS in-process worker sets,
 *    default 1, as `--role worker` runs them) has evaluated every monitor's window.
 * Prints the figure, the load average before and after, and EXPLAIN (ANALYZE) plans of the window
 * reads. DATABASE_URL (default the development database, migrated when needed). Uses its own
 * workspace and BullMQ prefix and deletes both at the end (BENCH_KEEP=1 keeps the data).
 */
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { Queue } from "bullmq";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { migrate } from "../lib/migrations.js";
import { writeSyntheticRuns } from "./monitors-data.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000);
const EVALUATORS = Number(process.env.BENCH_EVALUATORS ?? 100);
const MONITORS = Number(process.env.BENCH_MONITORS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const CADENCE = 60;
const DAY = 86_400_000;

const load = () => loadavg().map((x) => x.toFixed(2)).join(", ");

/** The ten monitors of one evaluator (every metric, condition and baseline; windows 5 minutes to 7 days). */
function monitorSpecs(evaluatorId: string, i: number): Record<string, unknown>[] {
  const common = { evaluatorId, cadenceSeconds: CADENCE };
  return [
    { name: `pass rate 1h ${i}`, metric: "pass_rate", scoreName: "ok", windowSeconds: 3600, condition: "threshold", warningLevel: 0.9, alertLevel: 0.85 },
    { name: `pass rate 7d ${i}`, metric: "pass_rate", scoreName: "ok", windowSeconds: 7 * 86400, condition: "threshold", alertLevel: 0.8 },
    { name: `drop vs previous 1h ${i}`, metric: "pass_rate", scoreName: "ok", windowSeconds: 3600, condition: "drop", baseline: "previous_window", minEffect: 0.05 },
    { name: `drop vs last week 6h ${i}`, metric: "pass_rate", scoreName: "ok", windowSeconds: 6 * 3600, condition: "drop", baseline: "week_before", minEffect: 0.05 },
    { name: `drop vs v1 24h ${i}`, metric: "pass_rate", scoreName: "ok", windowSeconds: 86400, condition: "drop", baseline: "previous_version", minEffect: 0.05 },
    { name: `mean drop 1d ${i}`, metric: "mean", scoreName: "ok", windowSeconds: 86400, condition: "drop", baseline: "previous_window", minEffect: 0.02 },
    { name: `p90 1h ${i}`, metric: "percentile", percentile: 90, scoreName: "ok", windowSeconds: 3600, condition: "threshold", alertLevel: 0.5 },
    { name: `volume 5m ${i}`, metric: "count", windowSeconds: 300, condition: "threshold", alertLevel: 1 },
    { name: `failures 1h ${i}`, metric: "not_ok_share", windowSeconds: 3600, condition: "threshold", warningLevel: 0.05, alertLevel: 0.2 },
    { name: `backlog ${i}`, metric: "backlog_age", windowSeconds: 300, condition: "threshold", alertLevel: 600 },
  ].map((s) => ({ ...common, ...s }));
}

/** Runs the section and prints its table. */
export async function run(): Promise<void> {
  const prefix = `oodle-bench-mon-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({ ...process.env, QUEUE_PREFIX: prefix, LOG_LEVEL: "warn" });
  await migrate(config.DATABASE_URL, "deploy");
  let now = Math.floor(Date.now() / (CADENCE * 1000)) * CADENCE * 1000;
  const clock = { now: () => new Date(now) };
  const app = createApp(config, { clock });
  const workers: Workers[] = [];
  const { workspace, apiKey } = await app.services.workspaces.createWorkspace(`bench-monitors-${prefix}`);
  const principal = { workspaceId: workspace.id, apiKeyId: apiKey.id };
  const loadBefore = load();
  try {
    console.error(`load average before: ${loadBefore}`);
    // Evaluators with two template versions each (version 2 current), written directly.
    const evaluators: { id: string; v1: string; v2: string }[] = [];
    for (let i = 0; i < EVALUATORS; i++) {
      const template = await app.prisma.template.create({
        data: {
          workspaceId: workspace.id,
          name: `bench ${i}`,
          liveName: `bench ${i}`,
          latestVersion: 2,
          versions: { create: [1, 2].map((version) => ({ version, sourceCode: "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n", params: [], entryPointKind: "evaluate", entryPointName: "evaluate" })) },
        },
        include: { versions: true },
      });
      const evaluator = await app.prisma.evaluator.create({ data: { workspaceId: workspace.id, name: `bench ${i}`, liveName: `bench ${i}`, templateId: template.id } });
      evaluators.push({ id: evaluator.id, v1: template.versions.find((v) => v.version === 1)!.id, v2: template.versions.find((v) => v.version === 2)!.id });
    }
    const loadStarted = performance.now();
    const perEvaluator = Math.floor(RUNS / EVALUATORS);
    const from = new Date(now - 8 * DAY);
    let written = 0;
    for (const [i, e] of evaluators.entries()) {
      // 8 days: version 1 for the first 7 and a half, version 2 after (so the last day holds both).
      const split = new Date(now - 12 * 3600_000);
      const older = Math.floor(perEvaluator * (7.5 / 8));
      await writeSyntheticRuns(app.prisma, { workspaceId: workspace.id, evaluatorId: e.id, templateVersionId: e.v1, scoreName: "ok", from, to: split, n: older, passes: Math.round(older * 0.9), failures: Math.round(older * 0.02), tag: `b${i}a` });
      const newer = perEvaluator - older;
      await writeSyntheticRuns(app.prisma, { workspaceId: workspace.id, evaluatorId: e.id, templateVersionId: e.v2, scoreName: "ok", from: split, to: new Date(now), n: newer, passes: Math.round(newer * 0.86), failures: Math.round(newer * 0.02), tag: `b${i}b` });
      written += perEvaluator;
      if ((i + 1) % 10 === 0) console.error(`  ${written.toLocaleString("en")} runs written (${((performance.now() - loadStarted) / 1000).toFixed(0)} s)`);
    }
    // As autovacuum would: the visibility map lets the window reads scan their indexes alone.
    await app.prisma.$executeRawUnsafe(`VACUUM ANALYZE "Span", "Run", "Score"`);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    console.error(`loaded ${written.toLocaleString("en")} runs in ${loadSeconds.toFixed(0)} s; load average ${load()}`);

    // The monitors, created just before the next window end.
    now += CADENCE * 1000 - 30_000;
    const created: string[] = [];
    for (const [i, e] of evaluators.entries()) for (const spec of monitorSpecs(e.id, i)) if (created.length < MONITORS) created.push((await app.services.monitors.createMonitor(principal, spec)).id);
    now += 30_000;
    for (let w = 0; w < WORKERS; w++) workers.push(await startWorkers(app, { queues: ["monitor-evaluate"], reconcileIntervalMs: 0 }));

    const rounds: { seconds: number; load: string }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (r > 0) now += CADENCE * 1000;
      const windowEnd = new Date(now);
      now += 3_000;
      const started = performance.now();
      await app.queues.addBulk("monitor-evaluate", created.map((id) => ({ payload: { monitorId: id }, jobId: `bench_${r}_${id}` })));
      for (;;) {
        const behind = await app.prisma.monitor.count({ where: { workspaceId: workspace.id, OR: [{ lastWindowEnd: null }, { lastWindowEnd: { lt: windowEnd } }] } });
        if (behind === 0) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      rounds.push({ seconds: (performance.now() - started) / 1000, load: load() });
      now -= 3_000;
      console.error(`  round ${r + 1}: ${created.length} monitors in ${rounds.at(-1)!.seconds.toFixed(1)} s (load ${rounds.at(-1)!.load})`);
    }
    const total = rounds.reduce((s, r) => s + r.seconds, 0);
    const perMinute = (created.length * ROUNDS * 60) / total;
    const states = await app.prisma.monitor.groupBy({ by: ["state"], where: { workspaceId: workspace.id }, _count: true });

    console.log(`\nmonitors: ${created.length} monitors over ${written.toLocaleString("en")} runs of ${EVALUATORS} evaluators (loaded in ${loadSeconds.toFixed(0)} s), ${WORKERS} worker(s), ${ROUNDS} cadences\n`);
    console.log("| measure | value |");
    console.log("| --- | --- |");
    console.log(`| monitors evaluated per minute | ${Math.round(perMinute).toLocaleString("en")} (target 1,000: ${perMinute >= 1000 ? "met" : "NOT met"}) |`);
    for (const [i, r] of rounds.entries()) console.log(`| round ${i + 1}: ${created.length} monitors | ${r.seconds.toFixed(1)} s (load average ${r.load}) |`);
    console.log(`| states after the last round | ${states.map((s) => `${s.state} ${s._count}`).join(", ")} |`);
    console.log(`| load average before the section (1, 5, 15 min; 2 cores) | ${loadBefore} |`);

    // The plans of the window reads (docs/monitors.md § Reads).
    const e = evaluators[0]!;
    const end = new Date(now);
    const start = new Date(now - 3600_000);
    const plans: [string, Prisma.Sql][] = [
      ["pass rate of one score name over 1 hour", Prisma.sql`SELECT count(*), count(*) FILTER (WHERE s."numericValue" = 1), avg(s."numericValue"), var_samp(s."numericValue") FROM "Score" s WHERE s."evaluatorId" = ${e.id}::uuid AND s.name = 'ok' AND s."createdAt" >= ${start} AND s."createdAt" < ${end} AND s."spanId" IS NOT NULL`],
      ["runs (count, not ok share) over 1 hour", Prisma.sql`SELECT count(*), count(*) FILTER (WHERE r.outcome NOT IN ('ok', 'skipped')) FROM "Run" r WHERE r."evaluatorId" = ${e.id}::uuid AND r."createdAt" >= ${start} AND r."createdAt" < ${end} AND r."spanId" IS NOT NULL`],
      ["pass rate per template version over 24 hours", Prisma.sql`SELECT r."templateVersionId", count(*), count(*) FILTER (WHERE s."numericValue" = 1) FROM "Run" r JOIN "Score" s ON s."runId" = r.id AND s.name = 'ok' WHERE r."evaluatorId" = ${e.id}::uuid AND r."createdAt" >= ${new Date(now - DAY)} AND r."createdAt" < ${end} AND r."spanId" IS NOT NULL GROUP BY 1`],
    ];
    for (const [label, sql] of plans) {
      const rows = await app.prisma.$queryRaw<{ "QUERY PLAN": string }[]>`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`;
      console.log(`\n${label}:\n\`\`\`\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}\n\`\`\``);
    }
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    for (const name of ["monitor-evaluate", "monitor-delivery"]) {
      const queue = new Queue(name, { connection: app.redis, prefix });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    if (!process.env.BENCH_KEEP) {
      console.error("deleting the bench workspace …");
      await app.prisma.workspace.delete({ where: { id: workspace.id } }).catch((error: unknown) => console.error(`could not delete the bench workspace: ${String(error)}`));
    }
    await app.close();
  }
}
