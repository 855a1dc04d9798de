// What span ingest hands its matched pairs to. Declared here, below runs/, which implements it
// (runs/enqueue.ts, runs/flows.ts); the composition root passes the implementation.

import type { TargetType } from "../../lib/closed-lists.js";

/** One evaluation to run: an evaluator on a stored target (a span: `targetId` is its Span.id). */
export interface EvaluationPair {
  targetType: TargetType;
  targetId: string;
  evaluatorId: string;
}

/** What an enqueuer needs to know of an evaluator: its kind and the evaluators it depends on (in position order). */
export interface EnqueuedEvaluator {
  id: string;
  kind: string;
  dependsOn: string[];
}

/**
 * Queues evaluations (runs/enqueue.ts: one job per pair; runs/flows.ts: BullMQ flows for dependencies).
 * @param known - the pairs' evaluators when the caller has just read them (ingest does), so the
 *   enqueuer does not read them again; every evaluator of `pairs` must then be in it.
 */
export type EvaluationEnqueuer = (workspaceId: string, pairs: readonly EvaluationPair[], known?: ReadonlyMap<string, EnqueuedEvaluator>) => Promise<void>;
