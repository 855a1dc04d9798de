import { hostname } from "node:os";
import { DelayedError, Worker, type Job } from "bullmq";
import type { App } from "./app.js";
import { infrastructureBackoffMs, isInfrastructureError } from "./lib/infra-errors.js";
import { createRedis } from "./lib/redis.js";
import { deferrableAt, MAX_DEFER_AGE_MS, ProviderDelayError } from "./modules/evaluation/evaluate-batch.js";
import { queueRegistry, type JobPayload, type QueueName } from "./queues/registry.js";
import { HAND_BACK_MS, serves, workspaceFilterOf, workspaceOfJob, type WorkspaceFilter } from "./queues/workspace-pools.js";

/** A job processor: receives the validated payload (ids only) and the job. */
type Processor<Q extends QueueName> = (payload: JobPayload<Q>, job: Job) => Promise<unknown>;

/** The processor of every queue; processors are idempotent (a retried job changes nothing twice). */
function processors(app: App): { [Q in QueueName]: Processor<Q> } {
  return {
    "api-key-usage": (payload) => app.services.workspaces.recordApiKeyUsage(payload.apiKeyId, new Date(payload.usedAt)),
    "evaluate-target": async (payload, job) => {
      // The job's progress counts its hand-overs to a runner (see runs/processor.ts crashesOf).
      const entries = typeof job.progress === "number" ? job.progress : 0;
      const attempts = {
        attemptsMade: job.attemptsMade,
        opts: job.opts,
        stalledCounter: job.stalledCounter,
        queuedAt: job.timestamp,
        sandboxEntries: entries,
        enteredSandbox: () => job.updateProgress(entries + 1),
      };
      if (!("targetIds" in payload)) {
        if (payload.targetType === "span") return app.services.runProcessor(payload, attempts);
        return app.services.groupProcessor({ ...payload, targetType: payload.targetType }, attempts);
      }
      const status = await app.services.spanBatch(payload, attempts);
      if ("split" in status) return status;
      // Kept on the job as counts per status (not one entry per span: a batch holds up to 1,000).
      const counts: Record<string, number> = {};
      for (const s of status.statuses) counts[s] = (counts[s] ?? 0) + 1;
      for (let i = 0; i < (counts.recorded ?? 0); i++) app.metrics.evaluationRecorded(job.timestamp);
      return counts;
    },
    // A barrier only has to complete: its promotion (by the dependency) was the event.
    "evaluation-barrier": async () => "released",
    "experiment-batch": (payload, job) =>
      app.services.experimentBatch(payload, { attempt: job.attemptsMade + 1, last: job.attemptsMade + 1 >= (job.opts.attempts ?? 1), crashes: job.stalledCounter, queuedAt: job.timestamp }),
    "backfill-batch": async (payload, job) => {
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      try {
        return await app.services.backfillBatch(payload, { attempt: job.attemptsMade + 1, last, queuedAt: job.timestamp });
      } catch (error) {
        // Out of attempts (not an outage, nor a provider's delay: both wait without spending one): the backfill failed.
        if (last && !(error instanceof ProviderDelayError)) await app.services.backfills.markFailed(payload.backfillId, error);
        throw error;
      }
    },
    "monitor-evaluate": async (payload) => {
      const report = await app.services.monitors.evaluateDue(payload.monitorId);
      return { evaluated: report.evaluated, already: report.already, more: report.more };
    },
    "monitor-delivery": (payload) => app.services.monitors.attemptDelivery(payload.deliveryId),
  };
}

/** The evaluations a job holds: the targets of a batch job, else 1. */
function evaluationsOf(job: Job): number {
  const targetIds = (job.data as { targetIds?: unknown }).targetIds;
  return Array.isArray(targetIds) ? targetIds.length : 1;
}

/** This process's name on its jobs (`processedBy`) and in Redis' client list: host and pid, so scaled-out workers are told apart. */
const WORKER_NAME = `${hostname()}:${process.pid}`;

/** Queues whose processors run user code in the sandbox: a worker refuses them when the sandbox is unusable. */
const SANDBOXED: readonly QueueName[] = ["evaluate-target", "experiment-batch", "backfill-batch"];

/** The running workers; `close` stops taking jobs and waits for active ones (bounded by the caller). */
export interface Workers {
  close(): Promise<void>;
}

/** Options of {@link startWorkers}. */
export interface WorkerOptions {
  /** The queues to work on (default: every queue of the registry). */
  queues?: readonly QueueName[];
  /**
   * How fast a killed worker's active jobs are taken over: BullMQ's lock duration and stalled-job
   * check interval (ms; defaults 30 000 each). Tests of a restart lower them.
   */
  stalled?: { lockDuration?: number; stalledInterval?: number };
  /** The reconciler's period (ms; 0: not run). Default: the config's RECONCILE_INTERVAL_MS. */
  reconcileIntervalMs?: number;
  /** The retention sweep's period (ms; 0: not run). Default: the config's RETENTION_INTERVAL_MS. */
  retentionIntervalMs?: number;
  /** The due poller's period of trace and session groups (ms; 0: not run). Default: the config's GROUP_POLL_INTERVAL_MS. */
  groupPollIntervalMs?: number;
  /**
   * Whose sandboxed jobs this worker runs (src/queues/workspace-pools.ts); others are handed back.
   * Default: the config's WORKER_WORKSPACES / WORKER_EXCLUDE_WORKSPACES (unset: every workspace's).
   */
  workspaces?: WorkspaceFilter;
}

/** The worker concurrency of a queue (jobs held at once by this process): its registry entry's, else 4. */
function concurrencyOf(name: QueueName): number {
  const entry = queueRegistry[name] as { concurrency?: number };
  return entry.concurrency ?? 4;
}

/** BullMQ workers of a queue in this process: its registry entry's `fetchers`, else 1 (see the registry). */
function fetchersOf(name: QueueName): number {
  const entry = queueRegistry[name] as { fetchers?: number };
  return entry.fetchers ?? 1;
}

/**
 * Starts one BullMQ worker per queue, with error listeners that log with context. When a queue
 * runs user code, the sandbox is probed first (fail closed): an unusable sandbox rejects with
 * `PreflightError` naming the missing layer, and no worker starts.
 */
export async function startWorkers(app: App, options: WorkerOptions = {}): Promise<Workers> {
  const names = options.queues ?? (Object.keys(queueRegistry) as QueueName[]);
  if (names.some((name) => SANDBOXED.includes(name))) await app.execution.ready();
  const connection = createRedis(app.config, "worker");
  connection.on("error", (err: Error) => app.logger.warn({ err: err.message }, "worker redis connection error"));
  const table = processors(app);
  const filter = options.workspaces ?? workspaceFilterOf(app.config);
  // Job id → infrastructure retries so far (for the backoff); forgotten once the job gets through.
  const infraRetries = new Map<string, number>();
  const workers = names.flatMap((name) => Array.from({ length: fetchersOf(name) }, () => ({ name, share: Math.ceil(concurrencyOf(name) / fetchersOf(name)) }))).map(({ name, share }) => {
    const processor = table[name] as Processor<QueueName>;
    const worker = new Worker(
      name,
      async (job, token) => {
        try {
          if (filter && token && SANDBOXED.includes(name)) {
            const workspaceId = await workspaceOfJob(app.prisma, name, job);
            if (workspaceId !== undefined && !serves(filter, workspaceId)) {
              // Another pool's job (WORKER_WORKSPACES): back to the queue for its own workers, no attempt used.
              await job.moveToDelayed(Date.now() + HAND_BACK_MS, token);
              throw new DelayedError();
            }
          }
          // Queue wait of first attempts only (a retry's wait includes its backoff), once per evaluation a job holds.
          if (job.attemptsMade === 0) for (let i = 0; i < evaluationsOf(job); i++) app.metrics.jobStarted(name, job.timestamp + (job.delay ?? 0));
          const status = await processor(queueRegistry[name].payload.parse(job.data) as JobPayload<QueueName>, job);
          if (job.id) infraRetries.delete(job.id);
          if (name === "evaluate-target" && status === "recorded") app.metrics.evaluationRecorded(job.timestamp);
          return status;
        } catch (error) {
          if (error instanceof ProviderDelayError && token && deferrableAt(job.timestamp, Date.now())) {
            // A provider's 429: back to the delayed set until its Retry-After, no attempt used.
            app.logger.info({ queue: name, jobId: job.id, until: new Date(error.untilMs).toISOString() }, "provider asked to wait; job delayed (attempts kept)");
            // Never past the deferral deadline: a job then runs and, no longer deferrable, spends attempts.
            await job.moveToDelayed(Math.min(Math.max(error.untilMs, Date.now() + 1), job.timestamp + MAX_DEFER_AGE_MS), token);
            throw new DelayedError();
          }
          if (!isInfrastructureError(error) || !token || !job.id) throw error;
          // Postgres or Redis is unavailable: nobody's fault, so it does not use up an attempt
          // (those are for sandbox faults). Back off and try again for as long as it lasts.
          const retries = infraRetries.get(job.id) ?? 0;
          if (infraRetries.size > 100_000) infraRetries.clear();
          infraRetries.set(job.id, retries + 1);
          const delay = infrastructureBackoffMs(retries);
          app.logger.warn({ queue: name, jobId: job.id, retries: retries + 1, delayMs: delay, err: error instanceof Error ? error.message : String(error) }, "dependency unavailable; job delayed (attempts kept)");
          await job.moveToDelayed(Date.now() + delay, token);
          throw new DelayedError();
        }
      },
      { connection, prefix: app.queuePrefix, concurrency: share, maxStalledCount: 3, name: WORKER_NAME, ...options.stalled },
    );
    worker.on("failed", (job, err) => app.logger.warn({ queue: name, jobId: job?.id, attempts: job?.attemptsMade, err }, "job failed"));
    worker.on("error", (err) => app.logger.warn({ queue: name, err: err.message }, "worker error (it reconnects)"));
    return worker;
  });
  const interval = options.reconcileIntervalMs ?? app.config.RECONCILE_INTERVAL_MS;
  const stopReconciler = interval > 0 ? app.services.reconciler.start(interval) : undefined;
  const stopResumer = interval > 0 && names.includes("backfill-batch") ? app.services.backfillResumer.start(interval) : undefined;
  // Monitors: puts back job schedulers and deliveries Redis lost, and catches up overdue windows (at start, then every interval).
  const stopMonitors = interval > 0 && names.includes("monitor-evaluate") ? app.services.monitors.scheduling.start(interval) : undefined;
  const groupInterval = options.groupPollIntervalMs ?? app.config.GROUP_POLL_INTERVAL_MS;
  const stopGroups = groupInterval > 0 && names.includes("evaluate-target") ? app.services.groupScheduler.start(groupInterval) : undefined;
  const retentionInterval = options.retentionIntervalMs ?? app.config.RETENTION_INTERVAL_MS;
  const stopRetention = retentionInterval > 0 ? app.services.retention.start(retentionInterval) : undefined;
  return {
    async close() {
      await stopRetention?.();
      await stopGroups?.();
      await stopReconciler?.();
      await stopResumer?.();
      await stopMonitors?.();
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
    },
  };
}
