/**
 * The service's Prometheus metrics (prom-client), one registry per process. Label sets are closed
 * lists (queue names, job states, run outcomes, evaluator kinds, runner close reasons, ingest
 * results): no span, trace, evaluator or workspace id is ever a label.
 *
 * In `--role all` the API and the worker share the process and so this registry; with split
 * roles each process serves its own (the API: ingest; the worker: runs, sandbox, runner pool),
 * and both report the queue gauges, which are read from Redis at scrape time.
 */
import { Queue } from "bullmq";
import type { Redis } from "../../lib/redis.js";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { PoolStats, RunnerObserver } from "../../execution/index.js";
import { queueRegistry, type QueueName } from "../../queues/registry.js";

/**
 * `read` shared by the collects of one scrape: prom-client starts every collect of a scrape in
 * the same synchronous pass (registry.metrics maps them all, then awaits), so the calls of one
 * scrape share one read; it is forgotten once settled, and the next scrape reads again.
 */
function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending) return pending;
    const current = read().finally(() => {
      if (pending === current) pending = undefined;
    });
    pending = current;
    return current;
  };
}

/** BullMQ job states reported per queue. */
export const JOB_STATES = ["waiting", "active", "delayed", "prioritized", "waiting-children", "failed"] as const;

/** Seconds buckets for sandbox item durations (1 ms … 30 s). */
const ITEM_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds buckets for queue waits and evaluation lag (5 ms … 10 min). */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** What the metrics read at scrape time. */
export interface MetricSources {
  redis: Redis;
  queuePrefix: string;
  /** The runner pool, when this process has started one. */
  pool(): PoolStats | undefined;
  /** Live evaluations owed and not yet run, over every workspace (read from Postgres at scrape time). */
  owed?(): Promise<{ queued: number; oldestAgeSeconds: number }>;
  /** Enabled monitors of every workspace per state (read from Postgres at scrape time). */
  monitorStates?(): Promise<Record<string, number>>;
  /** Live (not archived) evaluators of every workspace that a terminal provider error blocked (read from Postgres at scrape time). */
  blockedEvaluators?(): Promise<number>;
}

/** A run that was recorded on a target, live or by a backfill (one per target and evaluator). */
export interface RecordedRunEvent {
  outcome: string;
  /** Time the item ran in the sandbox, in ms (0 for a skipped run). */
  durationMs: number;
  /** Set when a backfill made the run (the `source` label is then "backfill"; the id is never a label). */
  backfillId?: string;
}

/** Creates the registry and the metric families; `close` releases the queue readers. */
export function createMetrics(sources: MetricSources) {
  const registry = new Registry();
  // prom-client's default names already say what they are (process_cpu_user_seconds_total,
  // nodejs_eventloop_lag_seconds): the prefix is only ours, so they read oodle_process_…, oodle_nodejs_….
  collectDefaultMetrics({ register: registry, prefix: "oodle_" });
  const readers = new Map<QueueName, Queue>();
  const reader = (name: QueueName) => {
    let queue = readers.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: sources.redis, prefix: sources.queuePrefix });
      queue.on("error", () => undefined); // a scrape during a Redis outage reports no queue values
      readers.set(name, queue);
    }
    return queue;
  };
  const names = Object.keys(queueRegistry) as QueueName[];

  // Each pair of families (jobs and oldest age; owed and oldest age) is read ONCE per scrape and set
  // by both collects from that read, whichever prom-client runs first: an age never lags its count.
  const readQueues = oncePerScrape(() =>
    Promise.all(
      names.map(async (name) => {
        try {
          const queue = reader(name);
          const [counts, oldest] = await Promise.all([queue.getJobCounts(...JOB_STATES), queue.getJobs(["wait"], 0, 0, true)]);
          const first = oldest[0];
          return { name, counts, age: first ? Math.max(0, (Date.now() - first.timestamp) / 1000) : 0 };
        } catch {
          return null; // Redis down: this queue is missing from the scrape (absent, not zero).
        }
      }),
    ),
  );
  new Gauge({
    name: "oodle_queue_oldest_waiting_job_age_seconds",
    help: "Age of the oldest job waiting in each queue, in seconds (0 when none waits).",
    labelNames: ["queue"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const q of await readQueues()) if (q) this.set({ queue: q.name }, q.age);
    },
  });
  new Gauge({
    name: "oodle_queue_jobs",
    help: "Jobs in each BullMQ queue by state (read at scrape time).",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const q of await readQueues()) if (q) for (const state of JOB_STATES) this.set({ queue: q.name, state }, q.counts[state] ?? 0);
    },
  });

  const readOwed = oncePerScrape(async () => (sources.owed ? sources.owed().catch(() => null) : null));
  new Gauge({
    name: "oodle_evaluations_queued_oldest_age_seconds",
    help: "Age of the oldest live evaluation owed and not yet run, in seconds (0 when none is; NaN when Postgres cannot be read): the scoring lag.",
    registers: [registry],
    async collect() {
      const owed = await readOwed();
      // Postgres down: NaN (unknown), never a made-up zero or the last value. No source: 0.
      this.set(owed ? owed.oldestAgeSeconds : sources.owed ? Number.NaN : 0);
    },
  });
  new Gauge({
    name: "oodle_evaluations_queued",
    help: "Live evaluations owed and not yet run (OwedEvaluation rows, every workspace; NaN when Postgres cannot be read): the scoring backlog.",
    registers: [registry],
    async collect() {
      const owed = await readOwed();
      this.set(owed ? owed.queued : sources.owed ? Number.NaN : 0);
    },
  });

  const runs = new Counter({
    name: "oodle_runs_total",
    help: "Runs recorded on spans, by outcome, evaluator kind and source (live or backfill).",
    labelNames: ["outcome", "evaluator_kind", "source"] as const,
    registers: [registry],
  });
  const itemSeconds = new Histogram({
    name: "oodle_sandbox_item_duration_seconds",
    help: "Time one item of a live run took in the sandbox, by outcome.",
    labelNames: ["outcome"] as const,
    buckets: ITEM_BUCKETS,
    registers: [registry],
  });
  const queueWait = new Histogram({
    name: "oodle_queue_wait_seconds",
    help: "Time a job waited from enqueue (after its delay) until a worker took it, by queue.",
    labelNames: ["queue"] as const,
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  const lag = new Histogram({
    name: "oodle_evaluation_lag_seconds",
    help: "Time from a span's evaluation being queued (at ingest) to its run being recorded.",
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  const batchSize = new Histogram({
    name: "oodle_live_batch_size",
    help: "Evaluations per live batch (one runner call and one insert each): 1 at rest, larger under load.",
    buckets: [1, 2, 5, 10, 25, 50, 100, 200, 400],
    registers: [registry],
  });
  const ingest = new Counter({ name: "oodle_ingest_spans_total", help: "Spans received by ingestSpans and OTLP, by result.", labelNames: ["result"] as const, registers: [registry] });
  const starts = new Counter({ name: "oodle_runner_starts_total", help: "Sandbox runner processes started.", registers: [registry] });
  const closed = new Counter({ name: "oodle_runner_retirements_total", help: "Sandbox runners closed because they retired or died.", labelNames: ["reason"] as const, registers: [registry] });
  new Gauge({
    name: "oodle_runner_pool",
    help: "The runner pool: busy slots, idle warm runners, slot count (absent before the pool starts).",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const stats = sources.pool();
      this.reset();
      if (!stats) return;
      this.set({ state: "busy" }, stats.busy);
      this.set({ state: "idle" }, stats.idle);
      this.set({ state: "max_busy" }, stats.maxBusy);
    },
  });
  new Gauge({
    name: "oodle_monitors",
    help: "Enabled monitors of every workspace by state (OK, WARNING, ALERT, NO_DATA; read from Postgres at scrape time; absent when it cannot be read).",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const counts = sources.monitorStates ? await sources.monitorStates().catch(() => null) : null;
      if (counts) for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  new Gauge({
    name: "oodle_evaluators_blocked",
    help: "Live evaluators of every workspace blocked by a terminal provider error (invalid key, unknown model, quota exhausted) until unblocked; read from Postgres at scrape time (NaN when it cannot be read).",
    registers: [registry],
    async collect() {
      const blocked = sources.blockedEvaluators ? await sources.blockedEvaluators().catch(() => null) : 0;
      // Postgres down: NaN (unknown), as the backlog gauges; no source: 0.
      this.set(blocked ?? Number.NaN);
    },
  });
  const monitorEvaluations = new Counter({ name: "oodle_monitor_evaluations_total", help: "Monitor windows evaluated by this process, by the state they gave.", labelNames: ["state"] as const, registers: [registry] });
  const alertDeliveries = new Counter({ name: "oodle_alert_delivery_attempts_total", help: "Alert delivery attempts made by this process, by result (delivered, retrying, failed, skipped).", labelNames: ["result"] as const, registers: [registry] });
  const judgeCalls = new Counter({
    name: "oodle_judge_calls_total",
    help: "Judge items handled by this process, by result: ok, invalid_answer, cache_hit, or the provider's error code (rate_limited, invalid_key, timeout, ...).",
    labelNames: ["result"] as const,
    registers: [registry],
  });
  const judgeSeconds = new Histogram({ name: "oodle_judge_provider_seconds", help: "Time of one judge call to its provider, seconds (cache hits excluded).", buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [registry] });
  for (const outcome of ["accepted", "rejected"]) ingest.inc({ result: outcome }, 0);
  for (const result of ["ok", "invalid_answer", "cache_hit"]) judgeCalls.inc({ result }, 0);
  starts.inc(0);

  const observer: RunnerObserver = {
    runnerStarted: () => starts.inc(),
    runnerClosed: (reason) => closed.inc({ reason }),
  };

  return {
    registry,
    /** For the executor. */
    runnerObserver: observer,
    /** A judge item was handled: `result` as in oodle_judge_calls_total, `seconds` the provider's time (absent for a cache hit or no call). */
    judgeCall(result: string, seconds?: number): void {
      judgeCalls.inc({ result });
      if (seconds !== undefined) judgeSeconds.observe(seconds);
    },
    /** A batch of spans was ingested. */
    spansIngested(accepted: number, rejected: number): void {
      if (accepted) ingest.inc({ result: "accepted" }, accepted);
      if (rejected) ingest.inc({ result: "rejected" }, rejected);
    },
    /** A live run was recorded. */
    runRecorded(event: RecordedRunEvent, evaluatorKind = "code"): void {
      runs.inc({ outcome: event.outcome, evaluator_kind: evaluatorKind, source: event.backfillId ? "backfill" : "live" });
      if (event.outcome !== "skipped") itemSeconds.observe({ outcome: event.outcome }, event.durationMs / 1000);
    },
    /** A monitor window was evaluated and gave `state`. */
    monitorEvaluated(state: string): void {
      monitorEvaluations.inc({ state });
    },
    /** An alert delivery attempt ended with `result`. */
    alertDeliveryAttempted(result: string): void {
      alertDeliveries.inc({ result });
    },
    /** A live batch of `size` evaluations started. */
    liveBatchStarted(size: number): void {
      batchSize.observe(size);
    },
    /** A worker took a job: `enqueuedAt` is when it became ready (ms since the epoch). */
    jobStarted(queue: QueueName, enqueuedAt: number): void {
      queueWait.observe({ queue }, Math.max(0, Date.now() - enqueuedAt) / 1000);
    },
    /** An evaluation queued at `queuedAt` (ms since the epoch) was recorded now. */
    evaluationRecorded(queuedAt: number): void {
      lag.observe(Math.max(0, Date.now() - queuedAt) / 1000);
    },
    /** The text exposition format. */
    async scrape(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    async close(): Promise<void> {
      await Promise.all([...readers.values()].map((q) => q.close().catch(() => undefined)));
    },
  };
}

/** The metrics of a process. */
export type Metrics = ReturnType<typeof createMetrics>;
