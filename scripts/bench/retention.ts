/**
 * Retention under load: loads BENCH_RETENTION_SPANS (default 100,000) spans 60 days old, each with
 * one run and one score (INSERT … SELECT generate_series, in chunks), into a workspace kept 30
 * days; then offers live spans at a fixed rate (BENCH_RATE spans/s, default 60, one keyword-check
 * evaluator, a worker process as deployed) for BENCH_SECONDS (default 30) with no deletion, and
 * again while the retention service's sweep deletes the old data (one batch transaction per call,
 * RETENTION_BATCH_SIZE spans each, timed). Prints rows deleted per second, the batch count, the
 * longest batch transaction (its four DELETEs) and the live runs/s and ingest → score p50/p99
 * with and without the deletion. DATABASE_URL: the development database by default.
 */
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/lib/logger.js";
import { obliterateBenchQueues } from "./queues.js";
import { createServer } from "../../src/server.js";
import { migrate } from "../lib/migrations.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

/** The p-th percentile (nearest rank) of sorted numbers. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Loads `n` spans created 60 days ago with one ok run and one score each, `chunk` spans per statement. */
async function loadOld(app: App, workspaceId: string, evaluatorId: string, n: number, chunk = 20_000): Promise<number> {
  const t0 = performance.now();
  for (let from = 1; from <= n; from += chunk) {
    const to = Math.min(n, from + chunk - 1);
    // Three statements per chunk, each its own transaction (a bench load: no interactive transaction's timeout).
    await app.prisma.$executeRaw`
        INSERT INTO "Span" (id, "workspaceId", "traceId", "spanId", name, kind, "startTime", input, output, "createdAt")
        SELECT md5(${workspaceId} || 's' || g)::uuid, ${workspaceId}::uuid, 'old-' || (g / 10), 'old-' || g, 'chat.completion', 'chat',
               now() - interval '60 days' + g * interval '1 ms', '"Why?"'::jsonb, '"Sorry, no."'::jsonb, now() - interval '60 days' + g * interval '1 ms'
        FROM generate_series(${from}::int, ${to}::int) g`;
    await app.prisma.$executeRaw`
        INSERT INTO "Run" (id, "workspaceId", "evaluatorId", "spanId", outcome, "durationMs", "startedAt", "finishedAt", "createdAt")
        SELECT md5(${workspaceId} || 'r' || g)::uuid, ${workspaceId}::uuid, ${evaluatorId}::uuid, md5(${workspaceId} || 's' || g)::uuid, 'ok', 1,
               now() - interval '60 days', now() - interval '60 days', now() - interval '60 days'
        FROM generate_series(${from}::int, ${to}::int) g`;
    await app.prisma.$executeRaw`
        INSERT INTO "Score" (id, "runId", "workspaceId", "evaluatorId", "spanId", position, name, "dataType", value, "numericValue", "createdAt")
        SELECT md5(${workspaceId} || 'c' || g)::uuid, md5(${workspaceId} || 'r' || g)::uuid, ${workspaceId}::uuid, ${evaluatorId}::uuid, md5(${workspaceId} || 's' || g)::uuid,
               0, 'keyword_check', 'BOOLEAN', 'true'::jsonb, 1, now() - interval '60 days'
        FROM generate_series(${from}::int, ${to}::int) g`;
  }
  for (const table of ["Span", "Run", "Score"]) await app.prisma.$executeRawUnsafe(`ANALYZE "${table}"`);
  return (performance.now() - t0) / 1000;
}

/** What one live window measured. */
interface LiveRow {
  seconds: number;
  runsPerSecond: number;
  latencies: number[];
  missing: number;
}

/** Offers `rate` spans/s for `seconds` to the workspace over HTTP; `during` runs alongside and ends when it does or the window does. */
async function live(app: App, url: string, secret: string, workspaceId: string, tag: string, rate: number, seconds: number): Promise<LiveRow> {
  const batch = Math.max(1, Math.ceil(rate / 10));
  const sentAt = new Map<string, number>();
  let serial = 0;
  const send = async (n: number) => {
    const spans = Array.from({ length: n }, () => ({ traceId: `${tag}-${serial}`, spanId: `${tag}-${serial++}`, name: "chat.completion", kind: "chat", input: "Why?", output: serial % 2 ? "Sorry, no." : "Sure." }));
    const t0 = Date.now();
    for (const s of spans) sentAt.set(s.spanId, t0);
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` }, body: JSON.stringify({ query: "mutation($s: [JSON!]!) { ingestSpans(input: { spans: $s }) { evaluationsQueued } }", variables: { s: spans } }) });
    const body = (await response.json()) as { data?: { ingestSpans: { evaluationsQueued: number } } };
    if (body.data?.ingestSpans.evaluationsQueued !== n) throw new Error(`ingest failed: ${JSON.stringify(body).slice(0, 300)}`);
  };
  const total = Math.round(rate * seconds);
  const interval = (1000 * batch) / rate;
  const start = Date.now();
  const inflight: Promise<void>[] = [];
  for (let sent = 0; sent < total; sent += batch) {
    const due = start + (sent / batch) * interval;
    if (due > Date.now()) await sleep(due - Date.now());
    inflight.push(send(Math.min(batch, total - sent)));
  }
  await Promise.all(inflight);
  const window = (Date.now() - start) / 1000;
  const mine = { workspaceId, span: { spanId: { startsWith: `${tag}-` } } };
  const committedInWindow = await app.prisma.run.count({ where: mine });
  const deadline = Date.now() + 120_000;
  while ((await app.prisma.run.count({ where: mine })) < total && Date.now() < deadline) await sleep(200);
  const runs = await app.prisma.run.findMany({ where: mine, select: { finishedAt: true, span: { select: { spanId: true } } } });
  const latencies = runs.map((r) => r.finishedAt!.getTime() - sentAt.get(r.span!.spanId)!).sort((a, b) => a - b);
  return { seconds: window, runsPerSecond: committedInWindow / window, latencies, missing: total - runs.length };
}

/** Runs the retention bench (see the file comment) and prints its table. */
export async function run(): Promise<void> {
  const n = Number(process.env.BENCH_RETENTION_SPANS ?? 100_000);
  const rate = Number(process.env.BENCH_RATE ?? 60);
  const seconds = Number(process.env.BENCH_SECONDS ?? 30);
  const prefix = `oodle-bench-${randomUUID().slice(0, 8)}`;
  // The worker process's own sweep is off (RETENTION_INTERVAL_MS=0): the bench runs and times the passes.
  const env = { ...process.env, QUEUE_PREFIX: prefix, HOST: "127.0.0.1", LOG_LEVEL: "warn", RATE_LIMIT_INGEST_PER_MINUTE: "0", MAX_QUEUED_EVALUATIONS_PER_WORKSPACE: "0", RETENTION_INTERVAL_MS: "0" } as Record<string, string>;
  delete env.METRICS_PORT;
  const config = loadConfig(env);
  await migrate(config.DATABASE_URL, "deploy");
  const app = createApp(config, { logger: createLogger("warn") });
  const worker = execa(process.execPath, ["--import", "tsx", path.join(ROOT, "src/main.ts"), "--role", "worker"], { cwd: ROOT, env, extendEnv: false, reject: false, stdout: "ignore", stderr: "inherit" });
  const http = createHttpServer(createServer(app));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
  const loadStart = load();
  try {
    const { workspace, secret, apiKey } = await app.services.workspaces.createWorkspace(`bench-retention-${randomUUID().slice(0, 8)}`);
    const principal = { workspaceId: workspace.id, apiKeyId: apiKey.id };
    const keyword = await app.services.templates.createTemplateFromStarter(principal, "keyword-check");
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Refusal words", templateId: keyword.template.id, params: { required: ["sorry"], mode: "any" } });
    await app.services.retention.setRetention(principal, { retentionDays: 30 });
    console.error(`retention: loading ${n} old spans with runs and scores …`);
    const loadSeconds = await loadOld(app, workspace.id, evaluator.id, n);

    console.error("retention: warm-up and live without deletion …");
    await live(app, url, secret, workspace.id, "warm", rate, 5);
    const before = await live(app, url, secret, workspace.id, "base", rate, seconds);

    console.error("retention: live while the sweep deletes …");
    const batchMs: number[] = [];
    const deleted = { spans: 0, runs: 0, scores: 0, history: 0 };
    let sweeping = true;
    const sweepStart = performance.now();
    let sweepSeconds = 0;
    const sweeper = (async () => {
      while (sweeping) {
        const t0 = performance.now();
        const pass = await app.services.retention.sweep({ workspaceId: workspace.id, maxBatches: 1 });
        if (pass.batches === 0 || (pass.deleted.spans === 0 && pass.deleted.history === 0)) break;
        batchMs.push(performance.now() - t0);
        for (const k of Object.keys(deleted) as (keyof typeof deleted)[]) deleted[k] += pass.deleted[k];
      }
      sweepSeconds = (performance.now() - sweepStart) / 1000;
    })();
    const during = await live(app, url, secret, workspace.id, "during", rate, seconds);
    const sweepDoneInWindow = sweepSeconds > 0;
    await sweeper; // the sweep may outlast the window: it finishes, and its rate is over its whole time
    sweeping = false;
    const left = await app.prisma.span.count({ where: { workspaceId: workspace.id, spanId: { startsWith: "old-" } } });
    const rows = deleted.spans + deleted.runs + deleted.scores + deleted.history;
    batchMs.sort((a, b) => a - b);

    console.log(`retention bench: ${n} old spans (1 run, 1 score each) loaded in ${loadSeconds.toFixed(1)} s; live ${rate} spans/s × ${seconds} s, 1 evaluator, 1 worker process, ${availableParallelism()} CPUs; RETENTION_BATCH_SIZE ${config.RETENTION_BATCH_SIZE}; load average at start ${loadStart}, end ${load()}`);
    console.log("| measure | value |");
    console.log("|---|---:|");
    console.log(`| rows deleted (spans + runs + scores + history) | ${rows} (${deleted.spans} + ${deleted.runs} + ${deleted.scores} + ${deleted.history}); old spans left ${left} |`);
    console.log(`| sweep time | ${sweepSeconds.toFixed(1)} s${sweepDoneInWindow ? " (within the live window)" : ""} |`);
    console.log(`| rows deleted per second | ${(rows / sweepSeconds).toFixed(0)} (spans ${(deleted.spans / sweepSeconds).toFixed(0)}/s) |`);
    console.log(`| batches (transactions) | ${batchMs.length} |`);
    console.log(`| batch transaction p50 / longest ms | ${percentile(batchMs, 50).toFixed(1)} / ${batchMs.at(-1)?.toFixed(1)} |`);
    console.log("");
    console.log("| live | runs/s | ingest → score p50 ms | p99 ms | not run |");
    console.log("|---|---:|---:|---:|---:|");
    for (const [label, r] of [["without deletion", before], ["during the sweep", during]] as const) {
      console.log(`| ${label} | ${r.runsPerSecond.toFixed(1)} | ${percentile(r.latencies, 50)} | ${percentile(r.latencies, 99)} | ${r.missing} |`);
    }
  } finally {
    worker.kill("SIGTERM");
    await worker;
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await app.prisma.workspace.deleteMany({ where: { name: { startsWith: "bench-retention-" } } }).catch(() => undefined);
    await obliterateBenchQueues(config.REDIS_URL, prefix);
    await app.close();
  }
}
