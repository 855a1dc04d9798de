import type { PrismaClient } from "../../lib/prisma.js";
import type { DependencyMap, Gate } from "../dependencies/graph.js";

/** One dependency of an evaluator, as an experiment uses it. */
export interface ExperimentDependency {
  /** The evaluator depended on. */
  dependsOnId: string;
  /** Its name: the key of `ctx.score` and of `document.scores`. */
  name: string;
  /** Run only when this score of the dependency passes; null: no gate. */
  gate: Gate | null;
}

/** Evaluator id → its dependencies, in their saved order. */
export type ExperimentDependencies = ReadonlyMap<string, readonly ExperimentDependency[]>;

/**
 * The dependencies of an experiment's evaluators (issue 8's EvaluatorDependency), read when a
 * batch runs. A dependency that is not one of the experiment's evaluators (an external judge, an
 * evaluator left out) counts as finished with no scores on every item: `ctx.score` returns its
 * default, and a gate on it does not pass (the dependent is recorded as skipped).
 */
export async function loadDependencies(prisma: PrismaClient, evaluatorIds: readonly string[]): Promise<ExperimentDependencies> {
  const rows = await prisma.evaluatorDependency.findMany({
    where: { evaluatorId: { in: [...evaluatorIds] } },
    include: { dependsOn: { select: { name: true } } },
    orderBy: [{ evaluatorId: "asc" }, { position: "asc" }],
  });
  const map = new Map<string, ExperimentDependency[]>();
  for (const row of rows) {
    const list = map.get(row.evaluatorId) ?? [];
    list.push({ dependsOnId: row.dependsOnId, name: row.dependsOn.name, gate: row.gateScore ? { score: row.gateScore, at: row.gateAt } : null });
    map.set(row.evaluatorId, list);
  }
  return map;
}

/** The ids each evaluator depends on, for ordering. */
export function dependencyIds(dependencies: ExperimentDependencies): DependencyMap {
  return new Map([...dependencies].map(([id, list]) => [id, list.map((d) => d.dependsOnId)]));
}
