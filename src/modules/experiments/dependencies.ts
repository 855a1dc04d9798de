import type { PrismaClient } from "../../lib/prisma.js";
import type { DependencyMap, Gate } from "../dependencies/graph.js";
import { kindTraits } from "../evaluators/kinds.js";
import { gateOf } from "../dependencies/store.js";

/** One dependency of an evaluator, as an experiment uses it. */
export interface ExperimentDependency {
  /** The evaluator depended on. */
  dependsOnId: string;
  /** Its name: the key of `ctx.score` and of `document.scores`. */
  name: string;
  /** Run only when this score of the dependency passes; null: no gate. */
  gate: Gate | null;
  /** True for an external evaluator: its scores are posted for the experiment's items (submitScores). */
  external?: boolean;
}

/** Evaluator id → its dependencies, in their saved order. */
export type ExperimentDependencies = ReadonlyMap<string, readonly ExperimentDependency[]>;

/**
 * The dependencies of an experiment's evaluators (declared and inferred EvaluatorDependency
 * edges), read when a batch runs. Code dependencies are members of the experiment (added at
 * creation). An external one is waited for until its scores are posted for the item or the
 * experiment's wait ends. A dependency that still has no scores when the dependent runs is named
 * in the run's `missingDependencies` (ctx.score returned its default; a gate on it fails).
 */
export async function loadDependencies(prisma: PrismaClient, evaluatorIds: readonly string[]): Promise<ExperimentDependencies> {
  const rows = await prisma.evaluatorDependency.findMany({
    where: { evaluatorId: { in: [...evaluatorIds] } },
    include: { dependsOn: { select: { name: true, kind: true } } },
    orderBy: [{ evaluatorId: "asc" }, { position: "asc" }],
  });
  const map = new Map<string, ExperimentDependency[]>();
  for (const row of rows) {
    const list = map.get(row.evaluatorId) ?? [];
    list.push({ dependsOnId: row.dependsOnId, name: row.dependsOn.name, gate: gateOf(row), external: kindTraits(row.dependsOn.kind).canBePosted });
    map.set(row.evaluatorId, list);
  }
  return map;
}

/** The ids each evaluator depends on, for ordering. */
export function dependencyIds(dependencies: ExperimentDependencies): DependencyMap {
  return new Map([...dependencies].map(([id, list]) => [id, list.map((d) => d.dependsOnId)]));
}
