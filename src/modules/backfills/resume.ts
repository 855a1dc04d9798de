import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { isInfrastructureError } from "../../lib/infra-errors.js";
import type { Queues } from "../../queues/queues.js";
import { backfillJobId } from "./service.js";

/** What one pass did. */
export interface ResumeReport {
  /** Batches queued again because their job was gone (Redis lost it). */
  requeued: number;
  /** Backfills marked failed because a batch's job failed without finishing (its worker died on it repeatedly). */
  failed: number;
}

/**
 * Keeps queued and running backfills moving when their jobs were lost: for each such backfill
 * older than `graceMs`, every batch with no finished row (BackfillBatch) whose job is gone from
 * Redis is queued again (the processor skips what was already written), and a batch whose job
 * failed — only BullMQ's stalled-job check fails a job without the processor marking the backfill
 * failed, i.e. it ended its worker more than `maxStalledCount` times — fails the backfill, saying
 * so, rather than running a poison pill again. The worker runs it with the reconciler.
 */
export function createBackfillResumer(deps: {
  prisma: PrismaClient;
  queues: Queues;
  logger: Logger;
  graceMs: number;
  /** Only these workspaces' backfills (all when absent): a test on a shared database must not queue other tests' work. */
  workspaceIds?: readonly string[];
}) {
  const { prisma, queues, logger } = deps;

  async function resume(): Promise<ResumeReport> {
    const report: ResumeReport = { requeued: 0, failed: 0 };
    const backfills = await prisma.backfill.findMany({
      where: {
        status: { in: ["queued", "running"] },
        createdAt: { lt: new Date(Date.now() - deps.graceMs) },
        ...(deps.workspaceIds ? { workspaceId: { in: [...deps.workspaceIds] } } : {}),
      },
      select: { id: true, spanCount: true, batchSize: true, batches: { select: { batch: true } } },
      take: 100,
    });
    for (const backfill of backfills) {
      const done = new Set(backfill.batches.map((b) => b.batch));
      const open = Array.from({ length: Math.ceil(backfill.spanCount / backfill.batchSize) }, (_, i) => i).filter((i) => !done.has(i));
      if (open.length === 0) continue;
      const states = await queues.states("backfill-batch", open.map((batch) => backfillJobId(backfill.id, batch)));
      const lost = open.filter((_, i) => states[i] === "unknown");
      const failedBatch = open.find((_, i) => states[i] === "failed");
      if (failedBatch !== undefined) {
        const message = `batch ${failedBatch} failed without finishing (its worker ended while running it, repeatedly); the backfill stops`;
        await prisma.backfill.updateMany({ where: { id: backfill.id, status: { in: ["queued", "running"] } }, data: { status: "failed", error: message, finishedAt: new Date() } });
        logger.error({ backfillId: backfill.id, batch: failedBatch }, "backfill failed: a batch job failed without finishing");
        report.failed += 1;
        continue;
      }
      if (lost.length) {
        await queues.addBulk("backfill-batch", lost.map((batch) => ({ payload: { backfillId: backfill.id, batch }, jobId: backfillJobId(backfill.id, batch) })));
        logger.warn({ backfillId: backfill.id, batches: lost.length }, "backfill batches queued again (their jobs were gone)");
        report.requeued += lost.length;
      }
    }
    return report;
  }

  return {
    resume,

    /** Runs {@link resume} every `intervalMs` (one pass at a time); returns a stop function. */
    start(intervalMs: number): () => Promise<void> {
      let running: Promise<unknown> | undefined;
      let stopped = false;
      const timer = setInterval(() => {
        if (running || stopped) return;
        running = resume()
          .catch((error: unknown) => logger[isInfrastructureError(error) ? "warn" : "error"]({ err: error instanceof Error ? error.message : String(error) }, "backfill resume pass failed; next pass later"))
          .finally(() => (running = undefined));
      }, intervalMs);
      timer.unref();
      return async () => {
        stopped = true;
        clearInterval(timer);
        await running;
      };
    },
  };
}

/** The backfill resumer. */
export type BackfillResumer = ReturnType<typeof createBackfillResumer>;
