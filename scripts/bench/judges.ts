/**
 * `npm run bench -- judges`: LLM judges (issue 30) on live spans against a loopback fake OpenAI
 * server (test/connections/fake-providers.ts) that answers every judge call after `delayMs`
 * (BENCH_JUDGE_DELAY_MS, default 200 ms). One app in this process (the span service, the
 * `evaluate-target` worker, the judge executor through the official OpenAI SDK), a BullMQ prefix
 * and a workspace of its own (both removed at the end), one politeness judge evaluator on a
 * connection whose `maxConcurrentRequests` is BENCH_JUDGE_CONCURRENCY (default 16).
 *
 * 0. Warm-up: a few spans (the SDK client, the statements), not measured.
 * 1. Low load: BENCH_JUDGE_LOW_SPANS spans (default 20) sent one at a time, BENCH_JUDGE_LOW_GAP_MS
 *    apart (default 300, more than one call: nothing waits for a slot). Per run, the latency the
 *    service adds over the provider = (run.finishedAt − the client's time before its ingest call)
 *    − usage.providerMs (the SDK call as the executor timed it), as in scripts/bench/live.ts
 *    (ingest → score from the client's send); split into send → stored (span.createdAt),
 *    stored → call start (run.startedAt: queue pickup, batch reads, render, cache read) and the rest.
 * 2. Throughput: BENCH_JUDGE_SPANS spans (default 400, distinct replies: no cache hit) ingested in
 *    batches of BENCH_JUDGE_BATCH (default 50) back to back. runs/s = N / (last run.finishedAt −
 *    the client's time before the first ingest call), beside the ceiling
 *    maxConcurrentRequests × 1000 / delayMs; the latency added under load (it includes the wait
 *    for a slot of the connection).
 * 3. Cache: the same N replies again on new spans (identical rendered prompts): runs/s of that
 *    pass, its hit rate (usage.cached) and the provider calls it made (the fake server's count).
 * Prints one table. DATABASE_URL (default the development database; migrated when needed).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/lib/logger.js";
import type { Principal } from "../../src/lib/principal.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { startOpenAiServer, type FakeProvider } from "../../test/connections/fake-providers.js";
import { migrate } from "../lib/migrations.js";
import { obliterateBenchQueues } from "./queues.js";

const SPANS = Number(process.env.BENCH_JUDGE_SPANS ?? 400);
const BATCH = Number(process.env.BENCH_JUDGE_BATCH ?? 50);
const CONCURRENCY = Number(process.env.BENCH_JUDGE_CONCURRENCY ?? 16);
const DELAY_MS = Number(process.env.BENCH_JUDGE_DELAY_MS ?? 200);
const LOW_SPANS = Number(process.env.BENCH_JUDGE_LOW_SPANS ?? 20);
const LOW_GAP_MS = Number(process.env.BENCH_JUDGE_LOW_GAP_MS ?? 300);
const WARM_SPANS = 4;
const COMMAND = "npm run bench -- judges";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

/** The p-th percentile (nearest rank) of sorted numbers. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
const p50p95 = (list: number[]) => `${percentile(sorted(list), 50)} / ${percentile(sorted(list), 95)}`;

/** The judge of the bench: one boolean from the reply (as test/judges/live.test.ts). */
const POLITE_JUDGE = {
  messages: [{ role: "user", content: "Is this reply polite? Reply:\n{{output}}\nRubric: {{params.rubric}}" }],
  output: [{ name: "polite", type: "boolean", higherIsBetter: true, description: "The reply is polite." }],
};
const SETTINGS = [
  { name: "model", type: "string", default: "judge-polite" },
  { name: "rubric", type: "string", default: "Polite means courteous." },
];

/** The fake provider's answer: polite when the reply says please or thanks. */
function politeScript(body: Record<string, unknown>) {
  const text = ((body.messages as { role: string; content: string }[]) ?? []).filter((m) => m.role === "user").map((m) => m.content).join("\n");
  return { reasoning: "looked at the words", polite: /please|thank/i.test(text) };
}

/** The n-th distinct reply (its rendered prompt differs from every other's). */
const reply = (n: number) => (n % 2 === 0 ? `Thank you for asking about item ${n}; here it is.` : `No. Item ${n} is not available.`);

function span(traceId: string, spanId: string, output: string) {
  return { traceId, spanId, name: "chat", kind: "chat", input: [{ role: "user", content: "hi" }], output };
}

/** What one run of a pass recorded, read back from the database. */
interface RunRow {
  spanId: string;
  spanCreatedAt: number;
  startedAt: number | null;
  finishedAt: number;
  outcome: string;
  cached: boolean;
  providerMs: number;
}

/** Waits until the pass's `expected` runs are written, then reads them. */
async function runsOf(app: App, evaluatorId: string, traceId: string, expected: number, timeoutMs = 120_000): Promise<RunRow[]> {
  const where = { evaluatorId, span: { traceId } };
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  while ((seen = await app.prisma.run.count({ where })) < expected) {
    if (Date.now() > deadline) throw new Error(`pass ${traceId}: ${seen} of ${expected} runs after ${timeoutMs} ms`);
    await sleep(25);
  }
  const runs = await app.prisma.run.findMany({ where, select: { outcome: true, usage: true, startedAt: true, finishedAt: true, span: { select: { spanId: true, createdAt: true } } } });
  return runs.map((r) => {
    const usage = (r.usage ?? {}) as { cached?: boolean; providerMs?: number };
    return {
      spanId: r.span!.spanId,
      spanCreatedAt: r.span!.createdAt.getTime(),
      startedAt: r.startedAt?.getTime() ?? null,
      finishedAt: r.finishedAt!.getTime(),
      outcome: r.outcome,
      cached: usage.cached === true,
      providerMs: usage.providerMs ?? 0,
    };
  });
}

/** Ingests `n` spans of trace `traceId` (replies `first`…) in batches back to back; returns the client's time before the first call. */
async function ingestBurst(app: App, principal: Principal, traceId: string, first: number, n: number): Promise<number> {
  const t0 = Date.now();
  for (let sent = 0; sent < n; sent += BATCH) {
    const spans = Array.from({ length: Math.min(BATCH, n - sent) }, (_, i) => span(traceId, `s${sent + i}`, reply(first + sent + i)));
    await app.services.spans.ingestSpans(principal, spans);
  }
  return t0;
}

/** One pass of a burst: runs/s and the runs. */
async function burst(app: App, principal: Principal, evaluatorId: string, traceId: string, first: number, n: number) {
  const t0 = await ingestBurst(app, principal, traceId, first, n);
  const runs = await runsOf(app, evaluatorId, traceId, n);
  const last = Math.max(...runs.map((r) => r.finishedAt));
  return { t0, runs, seconds: (last - t0) / 1000, runsPerSecond: n / ((last - t0) / 1000) };
}

/** Runs the section (see the file comment) and prints its table. */
export async function run(): Promise<void> {
  const prefix = `oodle-bench-judges-${randomUUID().slice(0, 8)}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: "warn",
    RATE_LIMIT_INGEST_PER_MINUTE: "0",
    MAX_QUEUED_EVALUATIONS_PER_WORKSPACE: "0",
    CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true",
    // A key ring of this run only when none is configured (the bench's connection is deleted at the end).
    CONNECTION_KEYS: process.env.CONNECTION_KEYS ?? `bench:${randomBytes(32).toString("base64")}`,
  };
  delete env.METRICS_PORT;
  const config = loadConfig(env);
  await migrate(config.DATABASE_URL, "deploy");
  const apiKey = `sk-proj-${randomBytes(24).toString("base64url")}`;
  const provider: FakeProvider = await startOpenAiServer(apiKey);
  provider.judge = politeScript;
  provider.delayMs = DELAY_MS;
  const app = createApp(config, { logger: createLogger("warn") });
  let workers: Workers | undefined;
  let workspaceId: string | undefined;
  const loadBefore = load();
  try {
    const created = await app.services.workspaces.createWorkspace(`bench-judges-${prefix}`);
    workspaceId = created.workspace.id;
    const principal: Principal = { workspaceId, apiKeyId: created.apiKey.id };
    const connection = await app.services.connections.createConnection(principal, { name: "Fake OpenAI", provider: "openai", baseUrl: provider.baseUrl, defaultModel: "judge-default", apiKey, maxConcurrentRequests: CONCURRENCY });
    const template = await app.services.templates.createTemplate(principal, { name: "Politeness", kind: "llm", judge: POLITE_JUDGE, params: SETTINGS });
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Politeness judge", templateId: template.template.id, connectionId: connection.id });
    const concurrency = (await app.prisma.connection.findUniqueOrThrow({ where: { id: connection.id }, select: { maxConcurrentRequests: true } })).maxConcurrentRequests;
    workers = await startWorkers(app, { queues: ["evaluate-target"], reconcileIntervalMs: 0, retentionIntervalMs: 0, groupPollIntervalMs: 0 });

    // 0. Warm-up (replies of their own, never measured).
    console.error(`judges: warm-up (${WARM_SPANS} spans) …`);
    await ingestBurst(app, principal, "warm", 1_000_000, WARM_SPANS);
    await runsOf(app, evaluator.id, "warm", WARM_SPANS);

    // 1. Low load: one span at a time, LOW_GAP_MS apart.
    console.error(`judges: low load (${LOW_SPANS} spans, ${LOW_GAP_MS} ms apart) …`);
    const sentAt = new Map<string, number>();
    const lowStart = Date.now();
    for (let i = 0; i < LOW_SPANS; i++) {
      const due = lowStart + i * LOW_GAP_MS;
      if (due > Date.now()) await sleep(due - Date.now());
      sentAt.set(`l${i}`, Date.now());
      await app.services.spans.ingestSpans(principal, [span("low", `l${i}`, reply(2_000_000 + i))]);
    }
    const low = await runsOf(app, evaluator.id, "low", LOW_SPANS);
    const lowAdded = low.map((r) => r.finishedAt - sentAt.get(r.spanId)! - r.providerMs);
    const lowStored = low.map((r) => r.spanCreatedAt - sentAt.get(r.spanId)!);
    const lowToCall = low.filter((r) => r.startedAt !== null).map((r) => r.startedAt! - r.spanCreatedAt);
    const lowAfterCall = low.filter((r) => r.startedAt !== null).map((r) => r.finishedAt - r.startedAt! - r.providerMs);
    const lowProvider = low.map((r) => r.providerMs);

    // 2. Throughput: N distinct replies in a burst.
    console.error(`judges: throughput (${SPANS} spans, batches of ${BATCH}, maxConcurrentRequests ${concurrency}) …`);
    const callsBeforeMiss = provider.requests.length;
    const miss = await burst(app, principal, evaluator.id, "miss", 0, SPANS);
    const missCalls = provider.requests.length - callsBeforeMiss;
    const loadedAdded = miss.runs.map((r) => r.finishedAt - r.spanCreatedAt - r.providerMs);
    const missProviderMs = miss.runs.reduce((sum, r) => sum + r.providerMs, 0);
    const inFlight = missProviderMs / 1000 / miss.seconds;
    // A run's finishedAt is its batch's end (evaluate-batch.ts stamps one per executor call): the batches seen.
    const perFinish = new Map<number, number>();
    for (const r of miss.runs) perFinish.set(r.finishedAt, (perFinish.get(r.finishedAt) ?? 0) + 1);
    const batchSizes = [...perFinish.values()];

    // 3. Cache: the same replies on new spans.
    console.error(`judges: cached pass (${SPANS} spans, the same replies) …`);
    const callsBeforeHit = provider.requests.length;
    const hit = await burst(app, principal, evaluator.id, "hit", 0, SPANS);
    const hitCalls = provider.requests.length - callsBeforeHit;
    const hits = hit.runs.filter((r) => r.cached).length;

    const ceiling = (concurrency * 1000) / DELAY_MS;
    const notOk = [...low, ...miss.runs, ...hit.runs].filter((r) => r.outcome !== "ok").length;
    const rows: [string, string, string][] = [
      [`runs/s, ${SPANS} spans (distinct replies), maxConcurrentRequests = ${concurrency}`, miss.runsPerSecond.toFixed(1),
        `ceiling ${ceiling.toFixed(0)} runs/s (${concurrency} × 1000 / ${DELAY_MS} ms) → ${((100 * miss.runsPerSecond) / ceiling).toFixed(0)}% of it; ${SPANS} runs in ${miss.seconds.toFixed(2)} s; ${missCalls} provider calls; mean calls in flight ${inFlight.toFixed(1)}`],
      [`added latency at low load p50 / p95 ms (${LOW_SPANS} spans, ${LOW_GAP_MS} ms apart)`, p50p95(lowAdded),
        `(finishedAt − client send) − usage.providerMs; providerMs p50 / p95 ${p50p95(lowProvider)} (server waits ${DELAY_MS})`],
      ["  low load: send → stored, p50 / p95 ms", p50p95(lowStored), "the ingest call (span.createdAt − client send)"],
      ["  low load: stored → call start, p50 / p95 ms", p50p95(lowToCall), "queue pickup, batch reads, render, cache read (run.startedAt − span.createdAt)"],
      ["  low load: call start → finished, less the provider, p50 / p95 ms", p50p95(lowAfterCall), "SDK call overhead outside providerMs, cache write (finishedAt − startedAt − providerMs)"],
      [`added latency under load p50 / p95 ms (the ${SPANS}-span burst)`, p50p95(loadedAdded), `(finishedAt − span.createdAt) − usage.providerMs: includes the wait for one of ${concurrency} slots and for the rest of the run's batch (${batchSizes.length} batches, largest ${Math.max(...batchSizes)} runs: one finishedAt per batch)`],
      [`runs/s, cached pass (the same ${SPANS} replies on new spans)`, hit.runsPerSecond.toFixed(1), `${SPANS} runs in ${hit.seconds.toFixed(2)} s; ${(hit.runsPerSecond / miss.runsPerSecond).toFixed(1)}× the uncached pass`],
      ["cache hit rate, cached pass", `${((100 * hits) / SPANS).toFixed(1)}%`, `${hits} of ${SPANS} runs with usage.cached = true`],
      ["new provider calls, cached pass", String(hitCalls), "requests the fake server received during the pass"],
    ];
    console.log(`\n## LLM judges against a loopback fake OpenAI server (${DELAY_MS} ms per call; one process: span service, evaluate-target worker, judge executor, official SDK)\n`);
    console.log("| measure | value | notes |");
    console.log("|---|---:|---|");
    for (const [measure, value, notes] of rows) console.log(`| ${measure} | ${value} | ${notes} |`);
    console.log(`\nmaxConcurrentRequests used: ${concurrency}; runs not ok: ${notOk}; load average (1/5/15 min) before ${loadBefore}, after ${load()}.`);
    console.log(`Command: ${COMMAND} (env BENCH_JUDGE_SPANS, BENCH_JUDGE_BATCH, BENCH_JUDGE_CONCURRENCY, BENCH_JUDGE_DELAY_MS, BENCH_JUDGE_LOW_SPANS, BENCH_JUDGE_LOW_GAP_MS)`);
  } finally {
    await workers?.close();
    if (workspaceId) await app.prisma.workspace.delete({ where: { id: workspaceId } }).catch(() => undefined);
    await obliterateBenchQueues(config.REDIS_URL, prefix).catch(() => undefined);
    await app.close();
    await provider.close();
  }
}
