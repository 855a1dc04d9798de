import type { PrismaClient } from "../../lib/prisma.js";
import type { DependencyMap } from "./ordering.js";

/**
 * The dependencies among an experiment's evaluators: evaluator id → ids it depends on.
 *
 * HOOK for issue 8 (evaluator dependencies): evaluators have no dependencies yet, so this returns
 * an empty map and every evaluator is independent. When the Evaluator model gains its dependency
 * list, read it here; the batch processor already orders evaluators with `orderEvaluators` and
 * hands each one the scores of its dependencies on the same item (`document.scores`, readable
 * with ctx.score). Gates (run only when a dependency's score passes) belong here too: return
 * them with the map and record gated-off runs as `skipped`.
 */
export async function loadDependencies(_prisma: PrismaClient, _evaluatorIds: readonly string[]): Promise<DependencyMap> {
  return new Map();
}
