import { evaluationJobId } from "../../queues/registry.js";
import type { Queues } from "../../queues/queues.js";

/** One evaluation to run: an evaluator on a stored span. */
export interface EvaluationPair {
  spanId: string;
  evaluatorId: string;
}

/** Queues evaluations (see {@link enqueueEvaluations}); replaceable, e.g. by BullMQ flows for dependencies. */
export type EvaluationEnqueuer = (workspaceId: string, pairs: readonly EvaluationPair[]) => Promise<void>;

/**
 * Queues one `evaluate-span` job per (span, evaluator), ids only, with the deterministic job id
 * of the pair: a pair already waiting, running or kept after completion is not queued again, and
 * the processor's unique (span, evaluator) run covers pairs whose job is long gone.
 */
export function queueEnqueuer(queues: Queues): EvaluationEnqueuer {
  return async (workspaceId, pairs) => {
    const CHUNK = 1_000;
    for (let i = 0; i < pairs.length; i += CHUNK) {
      await queues.addBulk(
        "evaluate-span",
        pairs.slice(i, i + CHUNK).map((p) => ({ payload: { workspaceId, spanId: p.spanId, evaluatorId: p.evaluatorId }, jobId: evaluationJobId(p.spanId, p.evaluatorId) })),
      );
    }
  };
}
