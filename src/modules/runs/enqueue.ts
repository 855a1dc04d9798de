import { evaluationJobId } from "../../queues/registry.js";
import type { Queues } from "../../queues/queues.js";
import type { EvaluationEnqueuer } from "../spans/enqueuer.js";

export type { EnqueuedEvaluator, EvaluationEnqueuer, EvaluationPair } from "../spans/enqueuer.js";

/**
 * Queues one `evaluate-target` job per (span, evaluator), ids only, with the deterministic job id
 * of the pair: a pair already waiting, running or kept after completion is not queued again, and
 * the processor's unique (span, evaluator) run covers pairs whose job is long gone.
 */
export function queueEnqueuer(queues: Queues): EvaluationEnqueuer {
  return async (workspaceId, pairs) => {
    const CHUNK = 1_000;
    for (let i = 0; i < pairs.length; i += CHUNK) {
      await queues.addBulk(
        "evaluate-target",
        pairs.slice(i, i + CHUNK).map((p) => ({ payload: { workspaceId, targetType: p.targetType, targetId: p.targetId, evaluatorId: p.evaluatorId }, jobId: evaluationJobId(p.targetId, p.evaluatorId) })),
      );
    }
  };
}

/**
 * Queues ingest batches, one `evaluate-target` job each (ids only: the workspace, the evaluator and
 * the span ids as the batch's targets), in one round trip; a batch whose job id already exists is not queued again.
 */
export function spanBatchQueuer(queues: Queues): (workspaceId: string, batches: readonly { evaluatorId: string; spanIds: string[]; jobId: string }[]) => Promise<void> {
  return (workspaceId, batches) => queues.addBulk("evaluate-target", batches.map((b) => ({ payload: { workspaceId, evaluatorId: b.evaluatorId, targetType: "span" as const, targetIds: b.spanIds }, jobId: b.jobId })));
}
