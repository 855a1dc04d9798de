/**
 * `npm run bench -- groups`: trace and session timers under load (issue 29).
 *
 * 1. Opens BENCH_SESSIONS sessions (default 10,000): one chat span each, ingested through the span
 *    service with a session evaluator (quiet period BENCH_SESSION_QUIET_MS, default 60 s) whose
 *    arrivals are dated over the last quiet period (the injected clock), so their timers come due
 *    spread over the first minute of the run, not all at once.
 * 2. Adds a trace evaluator (quiet period BENCH_TRACE_QUIET_MS, default 2 s), then sends
 *    BENCH_RATE spans/s (default 200) for BENCH_SECONDS (default 60) across the sessions, in
 *    batches every 100 ms: every two spans are one new trace of a random session (so each span
 *    slides its session's timer and its trace's).
 * 3. One in-process worker (`evaluate-target`, the real sandbox) runs what comes due; the due
 *    poller runs every GROUP_POLL_INTERVAL_MS (250 ms) in this process so its reports are read.
 * Prints how late timers fired — queued (poller's clock − dueAt) and started (the group processor
 * began − dueAt) — at p50/p95/p99/max, the runs written, and the backlog: due groups not yet queued
 * and the queue's waiting jobs, sampled every second (max and at the end). DATABASE_URL (default
 * the development database; migrated when needed). Own workspace and BullMQ prefix, both removed.
 */
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { Queue } from "bullmq";
import { createApp } from "../../src/app.js";
import { createRedis } from "../../src/lib/redis.js";
import { loadConfig } from "../../src/config.js";
import { startWorkers } from "../../src/worker.js";
import { migrate } from "../lib/migrations.js";
import { obliterateBenchQueues } from "./queues.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SESSION_QUIET_MS = Number(process.env.BENCH_SESSION_QUIET_MS ?? 60_000);
const TRACE_QUIET_MS = Number(process.env.BENCH_TRACE_QUIET_MS ?? 2_000);
const POLL_MS = Number(process.env.GROUP_POLL_INTERVAL_MS ?? 250);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

/** The p-th percentile (nearest rank) of sorted numbers. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const SOURCE = `def evaluate(ctx):
    spans = ctx.session.traces if ctx.session else [ctx.trace]
    return EvaluationResult(scores=[Score(name="spans", value=sum(len(t.spans) for t in spans))])
`;

function chatSpan(traceId: string, spanId: string, session: number, n: number) {
  return { traceId, spanId, name: "chat", kind: "chat", attributes: { "session.id": `bench-session-${session}` }, input: [{ role: "user", content: `question ${n}` }], output: `answer ${n}` };
}

/** Runs the section and prints its table. */
export async function run(): Promise<void> {
  const prefix = `oodle-bench-groups-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({ ...process.env, QUEUE_PREFIX: prefix, LOG_LEVEL: "warn", RATE_LIMIT_INGEST_PER_MINUTE: "0" });
  await migrate(config.DATABASE_URL, "deploy");
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const app = createApp(config, { clock });
  const { workspace, apiKey } = await app.services.workspaces.createWorkspace(`bench-groups-${prefix}`);
  const principal = { workspaceId: workspace.id, apiKeyId: apiKey.id };
  const started: number[] = [];
  const queuedLate: number[] = [];
  const due = new Map<string, number>();
  const loadBefore = load();
  let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
  try {
    const { template } = await app.services.templates.createTemplate(principal, { name: "group size", sourceCode: SOURCE });
    const session = await app.services.evaluators.createEvaluator(principal, { name: "session size", templateId: template.id });
    await app.prisma.evaluator.update({ where: { id: session.id }, data: { target: "session", groupSettings: { quietPeriodMs: SESSION_QUIET_MS, maxWaitMs: 4 * SESSION_QUIET_MS } } });
    // 1. The open sessions, their arrivals dated over the last quiet period.
    const batches = Math.ceil(SESSIONS / 1_000);
    for (let b = 0; b < batches; b++) {
      offsetMs = -SESSION_QUIET_MS + Math.round(((b + 1) * SESSION_QUIET_MS) / batches);
      const spans = Array.from({ length: Math.min(1_000, SESSIONS - b * 1_000) }, (_, i) => chatSpan(`open-${b * 1_000 + i}`, "s0", b * 1_000 + i, b * 1_000 + i));
      await app.services.spans.ingestSpans(principal, spans);
    }
    offsetMs = 0;
    const trace = await app.services.evaluators.createEvaluator(principal, { name: "trace size", templateId: template.id });
    await app.prisma.evaluator.update({ where: { id: trace.id }, data: { target: "trace", groupSettings: { quietPeriodMs: TRACE_QUIET_MS, maxWaitMs: 10 * TRACE_QUIET_MS } } });
    console.error(`opened ${SESSIONS} sessions; load ${load()}`);

    // The worker, with the group processor timed against the due time the poller read.
    const inner = app.services.groupProcessor;
    app.services.groupProcessor = (payload, job) => {
      const at = due.get(`${payload.targetId}:${payload.generation}`);
      if (at !== undefined) started.push(Date.now() - at);
      return inner(payload, job);
    };
    workers = await startWorkers(app, { queues: ["evaluate-target"], reconcileIntervalMs: 0, groupPollIntervalMs: 0 });
    const connection = createRedis(config.REDIS_URL, "producer");
    const queue = new Queue("evaluate-target", { connection, prefix });
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t0 = Date.now();
        // The poller's report gives each queued generation's due time: record it for the start lateness.
        const rows = await app.prisma.groupSchedule.findMany({ where: { workspaceId: workspace.id, dueAt: { lte: clock.now() } }, select: { id: true, generation: true, dueAt: true } });
        for (const r of rows) due.set(`${r.id}:${r.generation}`, r.dueAt!.getTime());
        const report = await app.services.groupScheduler.poll();
        queuedLate.push(...report.lateMs);
        await sleep(Math.max(0, POLL_MS - (Date.now() - t0)));
      }
    })();
    const samples: { overdue: number; waiting: number }[] = [];
    const sample = async () => {
      const [overdue] = await app.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM "GroupSchedule" WHERE "workspaceId" = ${workspace.id}::uuid AND "dueAt" <= ${clock.now()}::timestamp(3) AND ("queuedGeneration" IS NULL OR "queuedGeneration" < generation)`;
      samples.push({ overdue: overdue!.n, waiting: await queue.getWaitingCount() });
    };

    // 2. RATE spans/s across the sessions, for SECONDS.
    const perBatch = Math.max(2, Math.round(RATE / 10));
    const t0 = Date.now();
    let n = 0;
    let nextSample = t0;
    while (Date.now() - t0 < SECONDS * 1_000) {
      const spans = [];
      for (let i = 0; i < perBatch; i += 2) {
        const s = Math.floor(Math.random() * SESSIONS);
        const traceId = `t-${n}`;
        spans.push(chatSpan(traceId, "a", s, n), { ...chatSpan(traceId, "b", s, n), parentSpanId: "a" });
        n += 1;
      }
      await app.services.spans.ingestSpans(principal, spans);
      if (Date.now() >= nextSample) {
        await sample();
        nextSample += 1_000;
      }
      await sleep(Math.max(0, t0 + (n * 2 * 1_000) / RATE - Date.now()));
    }
    const sentSeconds = (Date.now() - t0) / 1_000;
    // Let the last traces' timers fire.
    await sleep(TRACE_QUIET_MS + 3_000);
    await sample();
    polling = false;
    await poller;
    await queue.close();
    connection.disconnect();
    const runs = await app.prisma.run.groupBy({ by: ["evaluatorId"], where: { workspaceId: workspace.id }, _count: true });
    const runsOf = (id: string) => runs.find((r) => r.evaluatorId === id)?._count ?? 0;
    const q = [...queuedLate].sort((a, b) => a - b);
    const s = [...started].sort((a, b) => a - b);
    const row = (label: string, v: number[]) => `| ${label} | ${v.length} | ${percentile(v, 50)} | ${percentile(v, 95)} | ${percentile(v, 99)} | ${v.at(-1) ?? "–"} |`;
    console.log(`\n## Trace and session timers (${SESSIONS} open sessions, ${(n * 2 / sentSeconds).toFixed(0)} spans/s for ${sentSeconds.toFixed(0)} s; trace quiet ${TRACE_QUIET_MS} ms, session quiet ${SESSION_QUIET_MS} ms; poll ${POLL_MS} ms)\n`);
    console.log("| lateness after dueAt (ms) | timers | p50 | p95 | p99 | max |\n|---|---:|---:|---:|---:|---:|");
    console.log(row("queued by the poller", q));
    console.log(row("started by the group processor", s));
    console.log(`\nruns written: trace ${runsOf(trace.id)}, session ${runsOf(session.id)}; backlog (due, not queued): max ${Math.max(...samples.map((x) => x.overdue))}, at the end ${samples.at(-1)!.overdue}; evaluate-target waiting: max ${Math.max(...samples.map((x) => x.waiting))}, at the end ${samples.at(-1)!.waiting}`);
    console.log(`load average before: ${loadBefore}; after: ${load()}`);
  } finally {
    await workers?.close();
    await app.prisma.workspace.delete({ where: { id: workspace.id } }).catch(() => undefined);
    await obliterateBenchQueues(config.REDIS_URL, prefix).catch(() => undefined);
    await app.close();
  }
}
