import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import { evaluationJobId } from "../../queues/registry.js";
import { isInfrastructureError } from "../../lib/infra-errors.js";
import type { TargetType } from "../../lib/closed-lists.js";
import { ProviderDelayError } from "../evaluation/evaluate-batch.js";
import { crashesOf, SandboxFaultError, type JobAttempts, type ProcessStatus, type RunProcessor } from "./processor.js";

/**
 * Live evaluations queued one job per ingest batch and evaluator (the `evaluate-target` job with
 * `targetIds`), for code evaluators outside every dependency: an ingest batch of n spans and k such
 * evaluators is k jobs, not n × k. Every span of the job goes through the same batched processor
 * as a one-pair job (runs/processor.ts), so batches still form per evaluator from what is waiting,
 * across jobs, and each (span, evaluator) is settled on its own, exactly once.
 * Evaluators with dependencies or dependents keep one job per pair: their order on a span is a
 * BullMQ flow per span (runs/flows.ts).
 */

/** The ids of a batch job (the `evaluate-target` payload with `targetIds`). */
export interface SpanBatchPayload {
  workspaceId: string;
  evaluatorId: string;
  targetType: TargetType;
  targetIds: string[];
}

/** What a batch job did: its spans' statuses in order, or "split" (see {@link createSpanBatchProcessor}). */
export type SpanBatchStatus = { statuses: ProcessStatus[] } | { split: number };

/**
 * The processor of batch jobs. Per attempt:
 * - every span is handed to the run processor with the job's attempts; a user fault is recorded
 *   for its span alone, the others go on;
 * - when some spans failed (a sandbox fault, a database error), the job fails with the first such
 *   error (an infrastructure error first, so the worker waits it out without using an attempt) and
 *   BullMQ retries it: the spans already recorded are "already-recorded" on the retry, so a retry
 *   changes nothing twice and the failed spans get the attempts a one-pair job would;
 * - a job whose worker died while its spans were in the sandbox ({@link crashesOf} ≥ 1) is split
 *   into one-pair jobs for its spans that have no run, and completes: those jobs find the culprit
 *   the way one-pair jobs do (suspects run alone; WORKER_CRASH_LIMIT), so a poison pill fails only
 *   its own span (it ends a worker three times instead of two).
 * @throws the first failure of a span, as above (BullMQ retries the job).
 */
export function createSpanBatchProcessor(deps: { prisma: PrismaClient; queues: Queues; processEvaluation: RunProcessor }) {
  return async function processSpanBatch(payload: SpanBatchPayload, job: JobAttempts): Promise<SpanBatchStatus> {
    const { workspaceId, evaluatorId, targetType } = payload;
    if (crashesOf(job) >= 1) {
      const ran = await deps.prisma.run.findMany({ where: { evaluatorId, spanId: { in: payload.targetIds } }, select: { spanId: true } });
      const done = new Set(ran.map((r) => r.spanId));
      const rest = payload.targetIds.filter((id) => !done.has(id));
      await deps.queues.addBulk("evaluate-target", rest.map((targetId) => ({ payload: { workspaceId, targetType, targetId, evaluatorId }, jobId: evaluationJobId(targetId, evaluatorId) })));
      return { split: rest.length };
    }
    // The job's spans enter the sandbox in one or more batches: the job counts one entry per attempt.
    let entered: Promise<unknown> | undefined;
    const attempts: JobAttempts = {
      attemptsMade: job.attemptsMade,
      opts: job.opts,
      stalledCounter: job.stalledCounter,
      queuedAt: job.queuedAt,
      sandboxEntries: job.sandboxEntries,
      ...(job.enteredSandbox ? { enteredSandbox: () => (entered ??= job.enteredSandbox!()) } : {}),
    };
    const settled = await Promise.allSettled(payload.targetIds.map((targetId) => deps.processEvaluation({ workspaceId, targetType, targetId, evaluatorId }, attempts)));
    const errors = settled.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : []));
    // An outage first (waited out), then a provider's delay (no attempt used), then anything but a sandbox fault.
    if (errors.length) throw errors.find(isInfrastructureError) ?? errors.find((e) => e instanceof ProviderDelayError) ?? errors.find((e) => !(e instanceof SandboxFaultError)) ?? errors[0];
    return { statuses: settled.map((s) => (s as PromiseFulfilledResult<ProcessStatus>).value) };
  };
}

/** The batch job processor. */
export type SpanBatchProcessor = ReturnType<typeof createSpanBatchProcessor>;
