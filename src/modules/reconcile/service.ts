import type { TargetType } from "../../lib/closed-lists.js";
import type { Logger } from "../../lib/logger.js";
import { startPeriodic } from "../../lib/periodic.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import { evaluationJobId } from "../../queues/registry.js";
import { batchJobs } from "../experiments/batch-plan.js";
import type { EvaluationEnqueuer, EvaluationPair } from "../runs/enqueue.js";

/** BullMQ states of a job that will still run (or is running). */
const LIVE_STATES = new Set(["waiting", "wait", "active", "delayed", "prioritized", "waiting-children"]);

/** An owed evaluation is queued again at most this many times; then it is logged and left (visible in OwedEvaluation). */
export const MAX_REQUEUES = 20;
/** Owed evaluations looked at per pass (the oldest first); the next pass takes the rest. */
const OWED_PER_PASS = 5_000;

/** Timing of the reconciler (ms). */
export interface ReconcileOptions {
  /** How old an owed evaluation or experiment must be (and how long since it was last queued again) before it is checked. */
  graceMs: number;
}

/** What one pass did (for logs, metrics and tests). */
export interface ReconcileReport {
  /** Owed evaluations that had their run and were deleted. */
  settled: number;
  /** Owed evaluations queued again (their job was gone, failed or finished without a run). */
  requeued: number;
  /** Owed evaluations queued for the last time ({@link MAX_REQUEUES}; logged, then left). */
  gaveUp: number;
  /** Experiment batches queued again (unfinished items and no live job). */
  batchesRequeued: number;
  /** Experiments marked completed (nothing pending, but their last batch could not say so). */
  experimentsCompleted: number;
}

/**
 * The reconciler: makes what Postgres says is owed match what Redis will run, after a lost
 * queue (Redis restarted without persistence), jobs failed during a database outage, or a
 * worker killed at the wrong moment. Postgres is the source of truth:
 * - live: `OwedEvaluation` rows (written with the spans) that have no run and no live job (their
 *   own, nor the ingest batch's job that queued them) are queued again with their own
 *   deterministic job id (a failed or finished job of that id is removed first); rows with a run
 *   are deleted.
 * - experiments: a queued or running experiment's batches with unfinished items and no live job
 *   of the current generation are queued again; one with nothing pending is completed.
 * Exactly once is kept by the unique run per (span, evaluator) and per (experiment, item,
 * evaluator): queueing again never runs a finished pair twice.
 */
export function createReconciler(deps: { prisma: PrismaClient; queues: Queues; enqueue: EvaluationEnqueuer; logger: Logger; options: ReconcileOptions }) {
  const { prisma, queues, logger } = deps;
  /** Batch job id → times queued again by this process (bounds a batch that fails for good). */
  const batchRequeues = new Map<string, number>();

  async function reconcileLive(report: ReconcileReport, workspaceId: string | null): Promise<void> {
    report.settled += await prisma.$executeRaw`
      DELETE FROM "OwedEvaluation" o USING "Run" r WHERE o."targetType" = 'span' AND r."spanId" = o."targetId" AND r."evaluatorId" = o."evaluatorId"`;
    // No foreign key to the target (polymorphic): a row whose span is gone is settled too (its job would find nothing).
    report.settled += await prisma.$executeRaw`
      DELETE FROM "OwedEvaluation" o WHERE o."targetType" = 'span' AND NOT EXISTS (SELECT 1 FROM "Span" s WHERE s.id = o."targetId")`;
    const grace = deps.options.graceMs;
    const rows = await prisma.$queryRaw<{ targetType: TargetType; targetId: string; evaluatorId: string; workspaceId: string; requeues: number; jobId: string | null }[]>`
      SELECT o."targetType", o."targetId", o."evaluatorId", o."workspaceId", o.requeues, o."jobId" FROM "OwedEvaluation" o
      WHERE o."createdAt" < now() - make_interval(secs => ${grace / 1000}::float8)
        AND (${workspaceId}::uuid IS NULL OR o."workspaceId" = ${workspaceId}::uuid)
        AND (o."requeuedAt" IS NULL OR o."requeuedAt" < now() - make_interval(secs => ${grace / 1000}::float8))
        AND o.requeues < ${MAX_REQUEUES}::int
        AND NOT EXISTS (SELECT 1 FROM "Run" r WHERE o."targetType" = 'span' AND r."spanId" = o."targetId" AND r."evaluatorId" = o."evaluatorId")
      ORDER BY o."createdAt" LIMIT ${OWED_PER_PASS}::int`;
    if (rows.length === 0) return;
    const ids = rows.map((r) => evaluationJobId(r.targetId, r.evaluatorId));
    // A pair queued by its ingest batch's job is alive while that job is (or its own job, once split or re-queued).
    const batchIds = [...new Set(rows.flatMap((r) => (r.jobId ? [r.jobId] : [])))];
    const [states, batchStates] = await Promise.all([queues.states("evaluate-target", ids), queues.states("evaluate-target", batchIds)]);
    const batchState = new Map(batchIds.map((id, i) => [id, batchStates[i]!]));
    const byWorkspace = new Map<string, EvaluationPair[]>();
    const requeued: typeof rows = [];
    for (const [i, row] of rows.entries()) {
      const state = states[i]!;
      if (LIVE_STATES.has(state) || (row.jobId && LIVE_STATES.has(batchState.get(row.jobId)!))) continue;
      if (row.requeues + 1 === MAX_REQUEUES) {
        report.gaveUp += 1; // queued this last time, then left (its row stays, for an operator)
        logger.error({ targetType: row.targetType, targetId: row.targetId, evaluatorId: row.evaluatorId, requeues: row.requeues + 1, state }, "owed evaluation still has no run after many re-queues; last try");
      }
      if (state !== "unknown" && !(await queues.remove("evaluate-target", ids[i]!))) continue;
      byWorkspace.set(row.workspaceId, [...(byWorkspace.get(row.workspaceId) ?? []), { targetType: row.targetType, targetId: row.targetId, evaluatorId: row.evaluatorId }]);
      requeued.push(row);
    }
    for (const [workspaceId, pairs] of byWorkspace) await deps.enqueue(workspaceId, pairs);
    if (requeued.length) {
      await prisma.$executeRaw`
        UPDATE "OwedEvaluation" o SET requeues = o.requeues + 1, "requeuedAt" = now(), "jobId" = NULL
        FROM jsonb_to_recordset(${JSON.stringify(requeued.map((r) => ({ t: r.targetType, s: r.targetId, e: r.evaluatorId })))}::jsonb) AS x(t text, s uuid, e uuid)
        WHERE o."targetType" = x.t AND o."targetId" = x.s AND o."evaluatorId" = x.e`;
      report.requeued += requeued.length;
    }
  }

  async function reconcileExperiments(report: ReconcileReport, workspaceId: string | null): Promise<void> {
    const grace = deps.options.graceMs;
    const experiments = await prisma.$queryRaw<{ id: string; datasetId: string; itemCount: number; batchSize: number; retries: number }[]>`
      SELECT id, "datasetId", "itemCount", "batchSize", retries FROM "Experiment"
      WHERE status IN ('queued', 'running') AND "createdAt" < now() - make_interval(secs => ${grace / 1000}::float8)
        AND (${workspaceId}::uuid IS NULL OR "workspaceId" = ${workspaceId}::uuid)
      ORDER BY "createdAt" LIMIT 100`;
    for (const experiment of experiments) {
      const evaluators = await prisma.experimentEvaluator.count({ where: { experimentId: experiment.id } });
      const rows = await prisma.$queryRaw<{ batch: number }[]>`
        SELECT DISTINCT (i.position / ${experiment.batchSize}::int) AS batch
        FROM "DatasetItem" i
        LEFT JOIN "Run" r ON r."datasetItemId" = i.id AND r."experimentId" = ${experiment.id}::uuid
        WHERE i."datasetId" = ${experiment.datasetId}::uuid AND i.position < ${experiment.itemCount}::int
        GROUP BY i.id, i.position
        HAVING count(r.id) < ${evaluators}::int
        ORDER BY 1`;
      const batches = rows.map((r) => Number(r.batch));
      if (batches.length === 0) {
        const done = await prisma.experiment.updateMany({ where: { id: experiment.id, status: { in: ["queued", "running"] } }, data: { status: "completed", finishedAt: new Date() } });
        report.experimentsCompleted += done.count;
        continue;
      }
      const jobs = batchJobs(experiment, batches);
      const states = await queues.states("experiment-batch", jobs.map((j) => j.jobId));
      const again = jobs.filter((job, i) => {
        if (LIVE_STATES.has(states[i]!)) return false;
        const count = batchRequeues.get(job.jobId) ?? 0;
        if (count >= MAX_REQUEUES) return false;
        batchRequeues.set(job.jobId, count + 1);
        return true;
      });
      for (const [i, job] of jobs.entries()) if (again.includes(job) && states[i] !== "unknown") await queues.remove("experiment-batch", job.jobId);
      if (again.length) {
        await queues.addBulk("experiment-batch", again);
        report.batchesRequeued += again.length;
        logger.warn({ experimentId: experiment.id, batches: again.map((j) => j.payload.batch) }, "experiment batches with unfinished items and no live job queued again");
      }
    }
    if (batchRequeues.size > 50_000) batchRequeues.clear();
  }

  return {
    /**
     * One pass over live owed evaluations and running experiments (of one workspace with
     * `scope.workspaceId`: an operator's targeted pass; the periodic pass takes every workspace).
     * @throws the database or Redis error when either is unavailable (the caller tries again later).
     */
    async reconcile(scope: { workspaceId?: string } = {}): Promise<ReconcileReport> {
      const report: ReconcileReport = { settled: 0, requeued: 0, gaveUp: 0, batchesRequeued: 0, experimentsCompleted: 0 };
      await reconcileLive(report, scope.workspaceId ?? null);
      await reconcileExperiments(report, scope.workspaceId ?? null);
      if (report.requeued || report.gaveUp || report.batchesRequeued || report.experimentsCompleted) logger.warn(report, "reconciler: queued again what Redis had lost or failed");
      return report;
    },

    /**
     * Runs {@link reconcile} every `intervalMs` (one pass at a time; errors are logged, an
     * unavailable dependency at warn level). @returns a function that stops it.
     */
    start(intervalMs: number): () => Promise<void> {
      return startPeriodic({ pass: () => this.reconcile(), intervalMs, logger, failure: "reconciler pass failed; next pass later" });
    },
  };
}

/** The reconciler. */
export type Reconciler = ReturnType<typeof createReconciler>;
