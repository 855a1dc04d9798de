/**
 * Live scoring, end to end, as a sweep of offered rates: spans are ingested over HTTP (loopback
 * only) in batches through the real GraphQL API; BullMQ, the worker (separate `--role worker`
 * processes, as deployed) and the sandbox score each span with three evaluators (the keyword-check
 * starter and the cookbook's "All checks pass" and "Gate on a check" recipes). For each offered
 * rate it prints runs committed/s, ingest → score p50/p95/p99 and the backlog when sending ends,
 * then the highest offered rate whose backlog stayed bounded and, in the same run, the experiment
 * end-to-end rate of the same three evaluators over dataset items, for comparison.
 *
 * Environment: BENCH_RATES (spans/s, default "60,200,500"), BENCH_SECONDS (per rate, default 60),
 * BENCH_REQUESTS_PER_SECOND (ingest requests/s; a batch is rate / this, at least 6 spans; default 10),
 * BENCH_WORKERS (worker processes, default 1), BENCH_ITEMS (experiment items, default 3000),
 * BENCH_PROFILE (a directory: the workers run with `node --cpu-prof` and write their profiles there),
 * DATABASE_URL (default the development database; migrated when needed). Uses a BullMQ prefix of
 * its own and deletes its workspaces at the end.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/lib/logger.js";
import { migrate } from "../lib/migrations.js";
import { obliterateBenchQueues } from "./queues.js";
import type { Principal } from "../../src/lib/principal.js";
import { createServer } from "../../src/server.js";
import { ALL_CHECKS_PASS, GATE_ON_A_CHECK } from "../../test/fixtures/cookbook-recipes.js";
import { benchItems } from "./experiments-data.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const EVALUATORS = 3;

/** The p-th percentile (nearest rank) of sorted numbers. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

/** The three evaluators of the bench in a fresh workspace. */
async function benchWorkspace(app: App, label: string): Promise<{ principal: Principal; secret: string; evaluatorIds: string[] }> {
  const { workspace, secret, apiKey } = await app.services.workspaces.createWorkspace(`bench-live-${label}-${randomUUID().slice(0, 8)}`);
  const principal = { workspaceId: workspace.id, apiKeyId: apiKey.id };
  const keyword = await app.services.templates.createTemplateFromStarter(principal, "keyword-check");
  const allPass = await app.services.templates.createTemplate(principal, { name: "All checks pass", sourceCode: ALL_CHECKS_PASS });
  const gate = await app.services.templates.createTemplate(principal, { name: "Gate on a check", sourceCode: GATE_ON_A_CHECK });
  const ids = [
    (await app.services.evaluators.createEvaluator(principal, { name: "Refusal words", templateId: keyword.template.id, params: { required: ["sorry", "cannot"], mode: "any" } })).id,
    (await app.services.evaluators.createEvaluator(principal, { name: "Safe reply", templateId: allPass.template.id })).id,
    (await app.services.evaluators.createEvaluator(principal, { name: "JSON answer", templateId: gate.template.id })).id,
  ];
  return { principal, secret, evaluatorIds: ids };
}

/** What one offered rate measured. */
interface RateRow {
  rate: number;
  seconds: number;
  offeredRunsPerSecond: number;
  committedInWindow: number;
  runsPerSecond: number;
  latencies: number[];
  /** Per run, ms, sorted: client send → span stored, stored → sandbox start, sandbox start → committed. */
  phases: { stored: number[]; toSandbox: number[]; sandboxToCommit: number[] };
  missing: number;
  backlogEnd: number;
  backlogMax: number;
  bounded: boolean;
  ingestP50: number;
  /** Ingest requests that failed and were sent again. */
  ingestErrors: number;
  loadBefore: string;
  loadAfter: string;
}

const items = readFileSync(new URL("../../test/fixtures/live-items.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { id: string; input: unknown; output: unknown });

/** Offers `rate` spans/s for `seconds` to a fresh workspace and measures (see the file comment). */
async function measureRate(app: App, url: string, rate: number, seconds: number, requestsPerSecond: number): Promise<RateRow> {
  const { principal, secret } = await benchWorkspace(app, String(rate));
  const workspaceId = principal.workspaceId;
  const batch = Math.max(6, Math.ceil(rate / requestsPerSecond));
  let serial = 0;
  const sentAt = new Map<string, number>(); // span id (ours) → client time before its request
  const ingestMs: number[] = [];
  let ingestErrors = 0;
  async function send(n: number): Promise<void> {
    const spans = Array.from({ length: n }, () => {
      const item = items[serial % items.length]!;
      serial += 1;
      return { traceId: `bench-${serial}`, spanId: `${item.id}-${serial}`, name: "chat.completion", kind: "chat", input: item.input, output: item.output };
    });
    const t0 = Date.now();
    for (const s of spans) sentAt.set(s.spanId, t0);
    // A client sends a failed batch again (spans are idempotent); the latency counts from the first try.
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
        body: JSON.stringify({ query: "mutation($s: [JSON!]!) { ingestSpans(input: { spans: $s }) { evaluationsQueued } }", variables: { s: spans } }),
      });
      const body = (await response.json()) as { data?: { ingestSpans: { evaluationsQueued: number } }; errors?: unknown };
      if (body.data && body.data.ingestSpans.evaluationsQueued === n * EVALUATORS) break;
      ingestErrors += 1;
      if (attempt >= 10) throw new Error(`ingest failed 10 times: ${JSON.stringify(body).slice(0, 500)}`);
      await sleep(500);
    }
    ingestMs.push(Date.now() - t0);
  }
  const owed = async () => app.prisma.owedEvaluation.count({ where: { workspaceId } });
  const runCount = async () => app.prisma.run.count({ where: { workspaceId } });

  // Warm-up: every item through every evaluator starts the runners; not measured.
  await send(items.length);
  const warmDeadline = Date.now() + 180_000;
  while ((await runCount()) < items.length * EVALUATORS) {
    if (Date.now() > warmDeadline) throw new Error("warm-up did not finish in 180 s (is the worker running?)");
    await sleep(50);
  }
  sentAt.clear();
  ingestMs.length = 0;
  ingestErrors = 0;
  const warmRuns = items.length * EVALUATORS;

  const loadBefore = load();
  const interval = (1000 * batch) / rate;
  const total = Math.round(rate * seconds);
  const start = Date.now();
  const inflight: Promise<void>[] = [];
  let backlogMax = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      backlogMax = Math.max(backlogMax, await owed());
      await sleep(1_000);
    }
  })();
  for (let sent = 0; sent < total; sent += batch) {
    const due = start + (sent / batch) * interval;
    if (due > Date.now()) await sleep(due - Date.now());
    inflight.push(send(Math.min(batch, total - sent)));
  }
  await Promise.all(inflight);
  const sendEnd = Date.now();
  sampling = false;
  await sampler;
  const [backlogEnd, committedAtEnd] = await Promise.all([owed(), runCount()]);
  const loadAfter = load();
  // Drain before the next rate (bounded): late runs count in the latencies, missing ones are reported.
  const expected = warmRuns + total * EVALUATORS;
  const drainDeadline = Date.now() + Math.max(60_000, 2 * seconds * 1000);
  while ((await runCount()) < expected && Date.now() < drainDeadline) await sleep(200);

  const runs = await app.prisma.run.findMany({ where: { workspaceId }, select: { startedAt: true, finishedAt: true, span: { select: { spanId: true, createdAt: true } } } });
  const latencies: number[] = [];
  const phases: RateRow["phases"] = { stored: [], toSandbox: [], sandboxToCommit: [] };
  for (const r of runs) {
    const t0 = sentAt.get(r.span!.spanId);
    if (t0 === undefined) continue;
    latencies.push(r.finishedAt!.getTime() - t0);
    phases.stored.push(r.span!.createdAt.getTime() - t0);
    // startedAt is the runner call's start (a skipped run has none: it never reached the sandbox).
    if (r.startedAt) {
      phases.toSandbox.push(r.startedAt.getTime() - r.span!.createdAt.getTime());
      phases.sandboxToCommit.push(r.finishedAt!.getTime() - r.startedAt.getTime());
    }
  }
  latencies.sort((a, b) => a - b);
  for (const list of Object.values(phases)) list.sort((a, b) => a - b);
  const window = (sendEnd - start) / 1000;
  const committedInWindow = committedAtEnd - warmRuns;
  const offeredRunsPerSecond = (total * EVALUATORS) / window;
  return {
    rate,
    seconds: window,
    offeredRunsPerSecond,
    committedInWindow,
    runsPerSecond: committedInWindow / window,
    latencies,
    phases,
    missing: total * EVALUATORS - latencies.length,
    backlogEnd,
    backlogMax,
    // Bounded: what is left when sending ends is under one second of the offered work.
    bounded: backlogEnd <= Math.max(300, offeredRunsPerSecond),
    ingestP50: percentile([...ingestMs].sort((a, b) => a - b), 50),
    ingestErrors,
    loadBefore,
    loadAfter,
  };
}

/** The experiment end-to-end rate of the same three evaluators over `total` dataset items (runs/s). */
async function measureExperiment(app: App, total: number): Promise<{ runs: number; seconds: number }> {
  const { principal, evaluatorIds } = await benchWorkspace(app, "experiment");
  const imported = await app.services.datasets.importItems(principal, { name: "bench" }, benchItems(total).stream);
  const t0 = performance.now();
  const experiment = await app.services.experiments.createExperiment(principal, { datasetId: imported.datasetId, evaluatorIds });
  for (;;) {
    const row = await app.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id }, select: { status: true } });
    if (row.status === "completed") break;
    if (row.status === "failed" || row.status === "cancelled") throw new Error(`experiment ${row.status}`);
    await sleep(50);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { runs: await app.prisma.run.count({ where: { experimentId: experiment.id } }), seconds };
}

/** Starts `n` worker processes (`--role worker`) on the bench's prefix. */
function startWorkerProcesses(n: number, env: Record<string, string>, profileDir?: string): ResultPromise[] {
  return Array.from({ length: n }, () =>
    execa(process.execPath, [...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []), "--import", "tsx", path.join(ROOT, "src/main.ts"), "--role", "worker"], {
      cwd: ROOT,
      env,
      extendEnv: false,
      reject: false,
      stdout: "ignore",
      stderr: "inherit",
    }),
  );
}

/** Runs the live sweep (see the file comment) and prints its table. */
export async function run(): Promise<void> {
  const rates = (process.env.BENCH_RATES ?? "60,200,500").split(",").map(Number);
  const seconds = Number(process.env.BENCH_SECONDS ?? 60);
  const requestsPerSecond = Number(process.env.BENCH_REQUESTS_PER_SECOND ?? 10);
  const workerCount = Number(process.env.BENCH_WORKERS ?? 1);
  const experimentItems = Number(process.env.BENCH_ITEMS ?? 3_000);
  const prefix = `oodle-bench-${randomUUID().slice(0, 8)}`;
  // No ingest rate limit and no backlog bound: the bench measures the pipeline, not the limits.
  const env = { ...process.env, QUEUE_PREFIX: prefix, HOST: "127.0.0.1", LOG_LEVEL: "warn", RATE_LIMIT_INGEST_PER_MINUTE: "0", MAX_QUEUED_EVALUATIONS_PER_WORKSPACE: "0" } as Record<string, string>;
  delete env.METRICS_PORT;
  const config = loadConfig(env);
  await migrate(config.DATABASE_URL, "deploy");
  const app = createApp(config, { logger: createLogger("warn") });
  const workers = startWorkerProcesses(workerCount, env, process.env.BENCH_PROFILE);
  const http = createHttpServer(createServer(app));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
  const rows: RateRow[] = [];
  let experiment: { runs: number; seconds: number } | undefined;
  const loadStart = load();
  try {
    for (const rate of rates) {
      console.error(`live: ${rate} spans/s for ${seconds} s …`);
      rows.push(await measureRate(app, url, rate, seconds, requestsPerSecond));
    }
    console.error(`experiment: ${experimentItems} items × ${EVALUATORS} evaluators …`);
    experiment = await measureExperiment(app, experimentItems);
  } finally {
    for (const w of workers) w.kill("SIGTERM");
    await Promise.all(workers);
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await app.prisma.workspace.deleteMany({ where: { name: { startsWith: "bench-live-" } } }).catch(() => undefined);
    await obliterateBenchQueues(config.REDIS_URL, prefix);
    await app.close();
  }

  console.log(
    `live scoring sweep: ${EVALUATORS} evaluators per span, ${seconds} s per rate, HTTP ingest at ${requestsPerSecond} requests/s, ` +
      `${workerCount} worker process(es), ${availableParallelism()} CPUs; load average (1/5/15 min) at start ${loadStart}`,
  );
  console.log("| offered spans/s | offered runs/s | runs committed/s | ingest → score p50 ms | p95 ms | p99 ms | backlog at end (max) | bounded | not run after drain | ingest request p50 ms (retried) | load avg before → after |");
  console.log("|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|");
  for (const r of rows) {
    console.log(
      `| ${r.rate} | ${r.offeredRunsPerSecond.toFixed(0)} | ${r.runsPerSecond.toFixed(0)} | ${percentile(r.latencies, 50)} | ${percentile(r.latencies, 95)} | ${percentile(r.latencies, 99)} | ` +
        `${r.backlogEnd} (${r.backlogMax}) | ${r.bounded ? "yes" : "no"} | ${r.missing} | ${r.ingestP50} (${r.ingestErrors}) | ${r.loadBefore} → ${r.loadAfter} |`,
    );
  }
  console.log("");
  console.log("Where the ingest → score time goes (p50 / p95 ms of each run): the client's send → the span stored (HTTP, GraphQL, the ingest transaction), stored → the runner call starts (commit, queueing, BullMQ fetch, the batch's reads), the runner call → the run committed (sandbox, write).");
  console.log("| offered spans/s | send → stored | stored → sandbox | sandbox → committed |");
  console.log("|---:|---:|---:|---:|");
  const p50p95 = (list: number[]) => `${percentile(list, 50)} / ${percentile(list, 95)}`;
  for (const r of rows) console.log(`| ${r.rate} | ${p50p95(r.phases.stored)} | ${p50p95(r.phases.toSandbox)} | ${p50p95(r.phases.sandboxToCommit)} |`);
  const bounded = rows.filter((r) => r.bounded);
  const best = bounded.length ? bounded.reduce((a, b) => (b.rate > a.rate ? b : a)) : undefined;
  const saturation = Math.max(...rows.map((r) => r.runsPerSecond));
  console.log("");
  console.log("| measure | value |");
  console.log("|---|---:|");
  console.log(`| highest offered rate with bounded backlog | ${best ? `${best.rate} spans/s (${best.offeredRunsPerSecond.toFixed(0)} runs/s)` : "none"} |`);
  console.log(`| live runs committed/s, highest of the sweep | ${saturation.toFixed(0)} |`);
  if (experiment) {
    const rate = experiment.runs / experiment.seconds;
    console.log(`| experiment end to end (${experiment.runs} runs, same ${EVALUATORS} evaluators) | ${rate.toFixed(0)} runs/s |`);
    console.log(`| live highest / experiment end to end | ${((100 * saturation) / rate).toFixed(0)}% |`);
  }
}
