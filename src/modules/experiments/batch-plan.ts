import type { Experiment } from "../../generated/prisma/client.js";

/** The batch numbers of an experiment: batch k covers item positions [k × batchSize, (k+1) × batchSize). */
export function batchesOf(experiment: Pick<Experiment, "itemCount" | "batchSize">): number[] {
  return Array.from({ length: Math.ceil(experiment.itemCount / experiment.batchSize) }, (_, k) => k);
}

/** The item positions of batch k, as a half-open range [from, to). */
export function batchRange(experiment: Pick<Experiment, "itemCount" | "batchSize">, batch: number): { from: number; to: number } {
  const from = batch * experiment.batchSize;
  return { from, to: Math.min(experiment.itemCount, from + experiment.batchSize) };
}

/**
 * The queued jobs of some batches: ids only in the payload; the job id names the experiment, the
 * batch and the retry generation, so queueing the same batch twice in one generation is a no-op.
 */
export function batchJobs(experiment: Pick<Experiment, "id" | "retries">, batches: readonly number[]) {
  return batches.map((batch) => ({
    payload: { experimentId: experiment.id, batch },
    jobId: `${experiment.id}_${batch}_${experiment.retries}`,
  }));
}
