import { createHash } from "node:crypto";
import { z } from "zod";
import { TARGET_TYPES } from "../lib/closed-lists.js";

/**
 * The typed registry of BullMQ queues: each queue's name, its payload schema (ids only, never
 * user data or secrets) and default job options. Producers and workers are built from it, so a
 * payload is checked against the same schema on both sides.
 */
export const queueRegistry = {
  /** Records when an API key was last used, off the request path (at most once a minute per key). */
  "api-key-usage": {
    payload: z.object({ apiKeyId: z.uuid(), usedAt: z.iso.datetime() }),
    jobOptions: { attempts: 3, backoff: { type: "exponential" as const, delay: 500 }, removeOnComplete: 1000, removeOnFail: 1000 },
  },
  /**
   * Runs one evaluator on targets (`TARGET_TYPES`) and records the runs: spans in
   * src/modules/runs/processor.ts, traces and sessions in src/modules/runs/group-processor.ts (one
   * pair per due generation, `groupJobId`). Two shapes:
   * - one pair, job id `evaluationJobId(targetId, evaluatorId)`: evaluators that take part in a
   *   dependency (flows need a job per target), re-runs, the reconciler's re-queues;
   * - one ingest batch of an evaluator outside every dependency, job id
   *   `spanBatchJobId(evaluatorId, spanKeys)` (runs/span-batch.ts): one job instead of one per target.
   * Either way a re-ingest cannot queue the same evaluations twice, a sandbox fault is retried
   * with backoff and a fault of the user's code is recorded and not retried.
   */
  "evaluate-target": {
    payload: z.union([
      z.object({
        workspaceId: z.uuid(),
        targetType: z.enum(TARGET_TYPES),
        targetId: z.uuid(),
        evaluatorId: z.uuid(),
        /** Set on a re-run after scores were posted again (part of the job id; see modules/dependencies). */
        tag: z.string().regex(/^[0-9a-f-]{1,40}$/).optional(),
        /** A trace or session target (targetId: its GroupSchedule): the generation due (modules/groups). */
        generation: z.number().int().positive().optional(),
      }),
      z.object({
        workspaceId: z.uuid(),
        evaluatorId: z.uuid(),
        targetType: z.enum(TARGET_TYPES),
        /** The batch's targets (an ingest batch holds at most 1,000). */
        targetIds: z.array(z.uuid()).min(1).max(1_000),
      }),
    ]),
    jobOptions: {
      attempts: 4,
      backoff: { type: "exponential" as const, delay: 1_000 },
      removeOnComplete: { count: 10_000 },
      removeOnFail: { count: 10_000 },
    },
    /**
     * Jobs taken at once by one worker: the processor coalesces them into batches per evaluator
     * (src/modules/runs/batcher.ts), so this bounds the batches' size, not the CPU work (the
     * executor's pool does).
     */
    concurrency: 400,
    /**
     * BullMQ workers on this queue per process, sharing the concurrency: one worker fetches its
     * jobs one Redis call after another, and every fetch leaves the queue's marker set, so the
     * next worker wakes and fetches beside it — a burst of an ingest batch's jobs is taken in a
     * quarter of the round trips, and at saturation fetching is not one sequence of calls.
     * The batcher coalesces the jobs of all of them (it is per process).
     */
    fetchers: 4,
  },
  /**
   * A barrier of an evaluator dependency on a target (src/modules/runs/flows.ts): a child
   * of the dependent's `evaluate-target` job, added delayed; the dependency's run (or posted
   * scores) promotes it, its processor does nothing, and BullMQ moves the dependent's job from
   * waiting-children to wait once every barrier has completed. The delay is only a safety net.
   */
  "evaluation-barrier": {
    payload: z.object({ targetType: z.enum(TARGET_TYPES), targetId: z.uuid(), evaluatorId: z.uuid(), dependsOnId: z.uuid() }),
    jobOptions: { attempts: 3, removeOnComplete: true, removeOnFail: { count: 1_000 } },
    concurrency: 32,
  },
  /**
   * Runs an experiment's evaluators over one batch of its items through the warm runners
   * (src/modules/experiments/batch-processor.ts). Job id `<experimentId>_<batch>_<retry generation>`.
   * A sandbox fault retries the batch with backoff; (item, evaluator) pairs that already have a
   * run are skipped, so a retried batch, or one taken over from a killed worker once its lock
   * expires, redoes nothing.
   */
  "experiment-batch": {
    payload: z.object({ experimentId: z.uuid(), batch: z.number().int().min(0) }),
    jobOptions: {
      attempts: 4,
      backoff: { type: "exponential" as const, delay: 2_000 },
      removeOnComplete: { count: 10_000 },
      removeOnFail: { count: 10_000 },
    },
    /** Two batches at once: one in the sandbox while the other writes its runs. */
    concurrency: 2,
  },
  /**
   * Runs a backfill's evaluators over one batch of its spans (src/modules/backfills/batch.ts).
   * Job id `<backfillId>_<batch>`. Like an experiment batch: one runner call and one write per
   * evaluator; pairs that already have the backfill's run are skipped, so a retried or taken-over
   * batch redoes nothing; a sandbox fault retries the batch with backoff; cancel is checked
   * between evaluators and under lock by every write.
   */
  "backfill-batch": {
    payload: z.object({ backfillId: z.uuid(), batch: z.number().int().min(0) }),
    jobOptions: {
      attempts: 4,
      backoff: { type: "exponential" as const, delay: 2_000 },
      removeOnComplete: { count: 10_000 },
      removeOnFail: { count: 10_000 },
    },
    /** One batch at a time per worker: backfills are background work beside live spans and experiments. */
    concurrency: 1,
  },
  /**
   * Evaluates one monitor over every window that is due (src/modules/monitors/evaluation.ts): added
   * by the monitor's BullMQ job scheduler (id `monitor_<monitorId>`, every cadence), and by the
   * monitors' reconciler as `catchup_<monitorId>_<windowEnd ms>` when Postgres says windows are
   * overdue (a worker or Redis was down). Each (monitor, window end) is evaluated once: the
   * evaluation row is unique and written under the monitor's row lock, so a duplicate job changes nothing.
   */
  "monitor-evaluate": {
    payload: z.object({ monitorId: z.uuid() }),
    jobOptions: { attempts: 3, backoff: { type: "exponential" as const, delay: 1_000 }, removeOnComplete: { count: 1_000 }, removeOnFail: { count: 1_000 } },
    /** Window reads are SQL: several at once per worker. */
    concurrency: 8,
  },
  /**
   * One attempt of an alert delivery (src/modules/monitors/delivery.ts), job id
   * `<deliveryId>_<attempt>`. A failed attempt with attempts left queues the next one delayed
   * (exponential backoff); Postgres holds the delivery and when it is due, so the reconciler
   * queues again what Redis lost.
   */
  "monitor-delivery": {
    payload: z.object({ deliveryId: z.uuid() }),
    jobOptions: { attempts: 1, removeOnComplete: { count: 1_000 }, removeOnFail: { count: 1_000 } },
    concurrency: 8,
  },
} as const;

/**
 * The deterministic job id of the evaluation of one target by one evaluator (no `:` for BullMQ);
 * a re-run after scores were posted again adds the post's tag. Target ids are uuids, unique
 * across target types, so the type is not part of the id (the format it had for spans).
 */
export function evaluationJobId(targetId: string, evaluatorId: string, tag?: string): string {
  return tag ? `${targetId}_${evaluatorId}_${tag}` : `${targetId}_${evaluatorId}`;
}

/**
 * The job id of one queueing of a generation of a trace or session group (GroupSchedule id: one
 * per group and evaluator) by the due poller (modules/runs/group-schedule.ts): the time it was
 * marked queued makes each queueing its own job (a generation waiting for its dependencies, or
 * whose job was lost, is queued again), while the row lock lets one poller mark it once.
 */
export function groupJobId(scheduleId: string, generation: number, queuedAt: Date): string {
  return `${scheduleId}_g${generation}_${queuedAt.getTime()}`;
}

/**
 * The deterministic job id of the evaluations of one evaluator on an ingest batch's spans: the
 * evaluator and a SHA-256 of the spans' sorted keys (`spanKey`: trace id NUL span id, known before
 * the spans are stored), so the same batch sent again is not queued twice.
 */
export function spanBatchJobId(evaluatorId: string, spanKeys: readonly string[]): string {
  return `${evaluatorId}_batch_${createHash("sha256").update([...spanKeys].sort().join("\n")).digest("hex").slice(0, 32)}`;
}

/** The deterministic job id of the barrier "`evaluatorId` waits for `dependsOnId` on `targetId`" (with the re-run's tag). */
export function barrierJobId(targetId: string, evaluatorId: string, dependsOnId: string, tag?: string): string {
  return `${evaluationJobId(targetId, evaluatorId, tag)}_${dependsOnId}`;
}

/** A queue name of the registry. */
export type QueueName = keyof typeof queueRegistry;
/** The payload type of a queue. */
export type JobPayload<Q extends QueueName> = z.infer<(typeof queueRegistry)[Q]["payload"]>;
