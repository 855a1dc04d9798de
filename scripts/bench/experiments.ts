/**
 * Experiment throughput on 10,000 real items with the cookbook's "All checks pass" recipe,
 * measured side by side in one run on the same sample documents:
 *
 * - the same evaluate() in a bare Python loop (scripts/bench/bare_loop.py: no sandbox, no IPC);
 * - one warm runner alone, and the executor's pool of warm runners (what the worker uses);
 * - the experiment end to end: createExperiment → BullMQ batch jobs → warm runners → runs and
 *   scores committed to PostgreSQL (timed until the experiment is completed);
 * - a new sandboxed process per evaluation (50 sampled; the rate is extrapolated);
 * - the memory (RSS) of a warm runner after the run.
 *
 * Environment: BENCH_ITEMS (default 10000), DATABASE_URL (default the development database;
 * migrated when needed). Uses its own workspace and BullMQ prefix and deletes both at the end.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { Queue } from "bullmq";
import { execa } from "execa";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createExecutor, type ExecuteItem, type ExecuteKey, type ItemResult } from "../../src/execution/index.js";
import { resolveLimits } from "../../src/execution/limits.js";
import { defaultSandboxPaths, seccompFilterPath } from "../../src/execution/paths.js";
import { RunnerProcess } from "../../src/execution/runner-process.js";
import { createLogger } from "../../src/lib/logger.js";
import { migrate } from "../lib/migrations.js";
import { createRedis } from "../../src/lib/redis.js";
import { itemToDocument } from "../../src/modules/experiments/document.js";
import { startWorkers } from "../../src/worker.js";
import { ALL_CHECKS_PASS } from "../../test/fixtures/cookbook-recipes.js";
import { benchItems } from "./experiments-data.js";
import { runnerRssMiB } from "./rss.js";

/** One measured row. */
export interface BenchRow {
  measure: string;
  /** Items (evaluations) measured. */
  items: number;
  /** Wall-clock seconds for them. */
  seconds: number;
  notes?: string;
}

const ROOT = path.resolve(import.meta.dirname, "../..");

function checkAllOk(label: string, results: ItemResult[]): void {
  const bad = results.find((r) => r.outcome !== "ok");
  if (bad) throw new Error(`${label}: ${JSON.stringify(bad).slice(0, 500)}`);
}

/** Measures every row of the experiment bench; `log` reports progress (stderr). */
export async function measureExperiments(log: (line: string) => void = (l) => console.error(l)): Promise<{ rows: BenchRow[]; runnerRss: number[]; shared: boolean }> {
  const total = Number(process.env.BENCH_ITEMS ?? 10_000);
  const prefix = `oodle-bench-exp-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({ ...process.env, QUEUE_PREFIX: prefix, LOG_LEVEL: "warn" });
  await migrate(config.DATABASE_URL, "deploy");
  const logger = createLogger("warn");
  const executor = createExecutor({ logger });
  const app = createApp(config, { logger, execution: executor });
  const { workspace, apiKey } = await app.services.workspaces.createWorkspace(`bench-experiments-${prefix}`);
  const principal = { workspaceId: workspace.id, apiKeyId: apiKey.id };
  const rows: BenchRow[] = [];
  try {
    const { stream, shared } = benchItems(total);
    const imported = await app.services.datasets.importItems(principal, { name: "bench" }, stream);
    log(`imported ${imported.imported} items (${shared ? "../shared/data" : "data/demo, cycled"}): halueval, xstest, llmfao, truthfulqa`);
    const { template, latest } = await app.services.templates.createTemplate(principal, { name: "All checks pass", sourceCode: ALL_CHECKS_PASS });
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Safe reply", templateId: template.id });
    const dbItems = await app.prisma.datasetItem.findMany({ where: { datasetId: imported.datasetId }, orderBy: { position: "asc" } });
    const items: ExecuteItem[] = dbItems.map((item) => ({ workspaceId: workspace.id, document: itemToDocument(item), params: {}, dependencies: [] }));
    const key: ExecuteKey = { workspaceId: workspace.id, templateVersionId: latest.id, sourceCode: ALL_CHECKS_PASS, libraries: {}, mode: "warm" };

    // 1. The bare Python loop (its own clock: the loop only, not JSON in and out).
    log("bare Python loop …");
    const bare = await execa("/usr/bin/python3.11", [path.join(ROOT, "scripts/bench/bare_loop.py")], {
      input: JSON.stringify({ source: ALL_CHECKS_PASS, items }),
      env: { PYTHONPATH: path.join(ROOT, "python-lib") },
      extendEnv: false,
      maxBuffer: 1024 * 1024 * 1024,
    });
    rows.push({ measure: "bare Python loop, same evaluate(), no sandbox (1 process)", items: items.length, seconds: (JSON.parse(bare.stdout) as { seconds: number }).seconds });

    // 2. One warm runner alone, then the pool the worker uses (both already started).
    log("warm runner alone …");
    const single = createExecutor({ logger, pool: { maxBusy: 1 } });
    try {
      checkAllOk("warm-up", await single.execute(key, items.slice(0, 200)));
      let t0 = performance.now();
      checkAllOk("warm runner", await single.execute(key, items));
      rows.push({ measure: "warm runner alone, 1 runner (executor, no queue or DB)", items: items.length, seconds: (performance.now() - t0) / 1000 });
      checkAllOk("warm-up", await executor.execute(key, items.slice(0, 200)));
      t0 = performance.now();
      checkAllOk("warm pool", await executor.execute(key, items));
      rows.push({ measure: `warm runner pool alone, ${availableParallelism()} runners (executor, no queue or DB)`, items: items.length, seconds: (performance.now() - t0) / 1000 });
    } finally {
      await single.close();
    }
    const runnerRss = runnerRssMiB();

    // 3. End to end: queued → sandbox → runs and scores committed.
    log("experiment end to end …");
    const workers = await startWorkers(app, { queues: ["experiment-batch"] });
    try {
      const t0 = performance.now();
      const experiment = await app.services.experiments.createExperiment(principal, { datasetId: imported.datasetId, evaluatorIds: [evaluator.id] });
      for (;;) {
        const row = await app.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id }, select: { status: true } });
        if (row.status === "completed") break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const seconds = (performance.now() - t0) / 1000;
      const runs = await app.prisma.run.count({ where: { experimentId: experiment.id, outcome: "ok" } });
      const scores = await app.prisma.score.count({ where: { experimentId: experiment.id } });
      if (runs !== items.length) throw new Error(`end to end: ${runs} ok runs of ${items.length}`);
      rows.push({ measure: "experiment end to end: queued → sandbox → scores committed", items: items.length, seconds, notes: `${runs} runs + ${scores} scores in PostgreSQL, batches of ${experiment.batchSize}` });
    } finally {
      await workers.close();
    }

    // 4. A new sandboxed process per evaluation.
    log("new sandboxed process per evaluation …");
    const sample = items.slice(0, 50);
    const paths = defaultSandboxPaths();
    const seccompProgram = readFileSync(seccompFilterPath());
    const limits = resolveLimits();
    const t0 = performance.now();
    for (const one of sample) {
      const runner = await RunnerProcess.start({ paths, seccompProgram, limits, key, logger });
      checkAllOk("per process", (await runner.runBatch([one])) as ItemResult[]);
      await runner.close();
    }
    rows.push({ measure: "new sandboxed process per evaluation (50 sampled, extrapolated)", items: sample.length, seconds: (performance.now() - t0) / 1000 });
    return { rows, runnerRss, shared: imported.imported > 0 && benchItems(0).shared };
  } finally {
    await app.prisma.workspace.delete({ where: { id: workspace.id } }).catch(() => undefined);
    const connection = createRedis(config.REDIS_URL, "producer");
    const queue = new Queue("experiment-batch", { connection, prefix });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    connection.disconnect();
    await app.close();
  }
}

/** `npm run bench -- experiments`: the experiment rows alone. */
export async function run(): Promise<void> {
  const { rows, runnerRss } = await measureExperiments();
  const bare = rows[0]!.items / rows[0]!.seconds;
  console.log('"All checks pass" recipe on real items');
  console.log("| measure | items | items/s | ms/item | vs bare loop | notes |");
  console.log("|---|---:|---:|---:|---:|---|");
  for (const row of rows) {
    const rate = row.items / row.seconds;
    console.log(`| ${row.measure} | ${row.items} | ${rate.toFixed(1)} | ${((1000 * row.seconds) / row.items).toFixed(2)} | ${(rate / bare).toFixed(2)} | ${row.notes ?? ""} |`);
  }
  console.log(`| warm runner memory (RSS) | | | | | ${runnerRss.map((r) => `${r.toFixed(1)} MiB`).join(", ")} |`);
}
