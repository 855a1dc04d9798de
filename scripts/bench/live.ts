/**
 * Live scoring, end to end: spans are ingested over HTTP (loopback only) at a fixed rate for a
 * fixed time through the real GraphQL API, BullMQ queue, worker and sandbox, each scored by three
 * evaluators (the keyword-check starter and the cookbook's "All checks pass" and "Gate on a
 * check" recipes). Prints ingest→score latency p50/p95/p99 (per run, and per span until its last
 * score) and throughput. Spans are built from the llmfao/xstest items of test/fixtures.
 *
 * Environment: BENCH_RATE (spans/s, default 60), BENCH_SECONDS (default 20), BENCH_BATCH (spans
 * per request, default 6), DATABASE_URL (default the development database; created and migrated
 * when missing). Uses a BullMQ prefix of its own and deletes its workspace at the end.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import { Queue } from "bullmq";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/lib/logger.js";
import { migrate } from "../../src/lib/migrations.js";
import { createRedis } from "../../src/lib/redis.js";
import { createServer } from "../../src/server.js";
import { startWorkers } from "../../src/worker.js";
import { ALL_CHECKS_PASS, GATE_ON_A_CHECK } from "../../test/fixtures/cookbook-recipes.js";

/** The p-th percentile (nearest rank) of sorted numbers. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the live bench (see the file comment) and prints its two tables. */
export async function run(): Promise<void> {
  const rate = Number(process.env.BENCH_RATE ?? 60);
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  const batch = Number(process.env.BENCH_BATCH ?? 6);
  const prefix = `oodle-bench-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({ ...process.env, QUEUE_PREFIX: prefix, HOST: "127.0.0.1", LOG_LEVEL: "warn" });
  await migrate(config.DATABASE_URL, "deploy");
  const app = createApp(config, { logger: createLogger("warn") });
  const workers = await startWorkers(app, { queues: ["evaluate-span"] });
  const http = createHttpServer(createServer(app));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
  const { workspace, secret, apiKey } = await app.services.workspaces.createWorkspace(`bench-live-${prefix}`);
  const principal = { workspaceId: workspace.id, apiKeyId: apiKey.id };
  try {
    const keyword = await app.services.templates.createTemplateFromStarter(principal, "keyword-check");
    const allPass = await app.services.templates.createTemplate(principal, { name: "All checks pass", sourceCode: ALL_CHECKS_PASS });
    const gate = await app.services.templates.createTemplate(principal, { name: "Gate on a check", sourceCode: GATE_ON_A_CHECK });
    await app.services.evaluators.createEvaluator(principal, { name: "Refusal words", templateId: keyword.template.id, params: { required: ["sorry", "cannot"], mode: "any" } });
    await app.services.evaluators.createEvaluator(principal, { name: "Safe reply", templateId: allPass.template.id });
    await app.services.evaluators.createEvaluator(principal, { name: "JSON answer", templateId: gate.template.id });
    const evaluators = 3;

    const items = readFileSync(new URL("../../test/fixtures/live-items.jsonl", import.meta.url), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { id: string; input: unknown; output: unknown });
    let serial = 0;
    const sentAt = new Map<string, number>(); // span id (ours) → client time before its request
    const ingestMs: number[] = [];
    async function send(n: number): Promise<void> {
      const spans = Array.from({ length: n }, () => {
        const item = items[serial % items.length]!;
        serial += 1;
        return { traceId: `bench-${serial}`, spanId: `${item.id}-${serial}`, name: "chat.completion", kind: "chat", input: item.input, output: item.output };
      });
      const t0 = Date.now();
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
        body: JSON.stringify({ query: "mutation($s: [JSON!]!) { ingestSpans(input: { spans: $s }) { evaluationsQueued spans { id } } }", variables: { s: spans } }),
      });
      const body = (await response.json()) as { data?: { ingestSpans: { evaluationsQueued: number } }; errors?: unknown };
      ingestMs.push(Date.now() - t0);
      if (!body.data || body.data.ingestSpans.evaluationsQueued !== n * evaluators) throw new Error(`ingest failed: ${JSON.stringify(body).slice(0, 500)}`);
      for (const s of spans) sentAt.set(s.spanId, t0);
    }

    // Warm-up: one span through every evaluator starts the runners; not measured.
    await send(items.length);
    const warm = async () => (await app.prisma.run.count({ where: { workspaceId: workspace.id } })) >= items.length * evaluators;
    while (!(await warm())) await sleep(50);
    sentAt.clear();
    ingestMs.length = 0;

    // Fixed rate: a batch every batch/rate seconds, on a schedule that does not drift.
    const interval = (1000 * batch) / rate;
    const total = Math.round(rate * seconds);
    const start = Date.now();
    const inflight: Promise<void>[] = [];
    for (let sent = 0; sent < total; sent += batch) {
      const due = start + (sent / batch) * interval;
      if (due > Date.now()) await sleep(due - Date.now());
      inflight.push(send(Math.min(batch, total - sent)));
    }
    await Promise.all(inflight);
    const sendEnd = Date.now();
    const expected = items.length * evaluators + total * evaluators;
    const deadline = Date.now() + 120_000;
    while ((await app.prisma.run.count({ where: { workspaceId: workspace.id } })) < expected && Date.now() < deadline) await sleep(100);

    const runs = await app.prisma.run.findMany({
      where: { workspaceId: workspace.id },
      select: { outcome: true, finishedAt: true, span: { select: { spanId: true } } },
    });
    const perRun: number[] = [];
    const perSpan = new Map<string, number>();
    let last = 0;
    const outcomes = new Map<string, number>();
    for (const r of runs) {
      const t0 = sentAt.get(r.span!.spanId);
      if (t0 === undefined) continue; // warm-up
      outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
      const done = r.finishedAt!.getTime();
      last = Math.max(last, done);
      perRun.push(done - t0);
      perSpan.set(r.span!.spanId, Math.max(perSpan.get(r.span!.spanId) ?? 0, done - t0));
    }
    perRun.sort((a, b) => a - b);
    const spanLat = [...perSpan.values()].sort((a, b) => a - b);
    const ingestSorted = [...ingestMs].sort((a, b) => a - b);
    const measured = (last - start) / 1000;

    console.log(`live scoring: ${total} spans at ${rate} spans/s for ${seconds} s, ${batch} spans per request, ${evaluators} evaluators per span, ` +
      `${availableParallelism()} CPUs (runner pool ${availableParallelism()}, worker concurrency 16)`);
    console.log("| measure | n | p50 ms | p95 ms | p99 ms | max ms |");
    console.log("|---|---:|---:|---:|---:|---:|");
    const row = (name: string, xs: number[]) =>
      console.log(`| ${name} | ${xs.length} | ${percentile(xs, 50)} | ${percentile(xs, 95)} | ${percentile(xs, 99)} | ${xs.at(-1)} |`);
    row("ingest request (HTTP round trip)", ingestSorted);
    row("ingest → score committed (per run)", perRun);
    row("ingest → last score of the span", spanLat);
    console.log("");
    console.log("| throughput | value |");
    console.log("|---|---:|");
    console.log(`| spans offered | ${(total / ((sendEnd - start) / 1000)).toFixed(1)} spans/s |`);
    console.log(`| runs committed | ${perRun.length} of ${total * evaluators} (${[...outcomes].map(([o, n]) => `${o} ${n}`).join(", ")}) |`);
    console.log(`| runs/s (first send → last commit) | ${(perRun.length / measured).toFixed(1)} |`);
    console.log(`| spans fully scored/s | ${(spanLat.length / measured).toFixed(1)} |`);
  } finally {
    await workers.close();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await app.prisma.workspace.delete({ where: { id: workspace.id } }).catch(() => undefined);
    const connection = createRedis(config.REDIS_URL, "producer");
    const queue = new Queue("evaluate-span", { connection, prefix });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    connection.disconnect();
    await app.close();
  }
}
