import { NotFoundError } from "../../lib/errors.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Principal } from "../../lib/principal.js";
import { isUuid } from "../../lib/uuid.js";
import { dependencyGraph, spanRunsInOrder, type DependencyGraph, type LayeredRun } from "./reading.js";
import { loadDependencyEdges, type DependencyEdge } from "./store.js";

export type { Gate } from "./graph.js";
export type { DependencyEdge } from "./store.js";
export type { DependencyGraph, LayeredRun } from "./reading.js";

/**
 * Evaluator dependencies, read: edges, graphs, runs in order. Saving them is part of the
 * evaluators service (one transaction with the evaluator); what runs them on live spans is in
 * runs/ (flows.ts, release.ts), posting external scores in posted-scores/.
 */
export function createDependencyService(deps: { prisma: PrismaClient }) {
  const { prisma } = deps;

  /** An evaluator id of the caller's workspace (archived ones too). @throws NotFoundError. */
  async function ownEvaluator(principal: Principal, evaluatorId: string): Promise<string> {
    const found = isUuid(evaluatorId) ? await prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId: principal.workspaceId }, select: { id: true } }) : null;
    if (!found) throw new NotFoundError("evaluator", evaluatorId);
    return found.id;
  }

  return {
    /**
     * What an evaluator of the workspace runs after: its declared dependencies in the order given,
     * with their gates, then those inferred from its code. @throws NotFoundError.
     */
    async dependenciesOf(principal: Principal, evaluatorId: string): Promise<DependencyEdge[]> {
      return loadDependencyEdges(prisma, [await ownEvaluator(principal, evaluatorId)]);
    },

    /** The ids of the evaluators that run after an evaluator of the workspace, oldest first. @throws NotFoundError. */
    async dependentsOf(principal: Principal, evaluatorId: string): Promise<string[]> {
      const id = await ownEvaluator(principal, evaluatorId);
      const rows = await prisma.evaluator.findMany({ where: { workspaceId: principal.workspaceId, dependencies: { some: { dependsOnId: id } } }, orderBy: { createdAt: "asc" }, select: { id: true } });
      return rows.map((r) => r.id);
    },

    /** The dependency graph around an evaluator of the workspace. */
    graph: (workspaceId: string, evaluatorId: string): Promise<DependencyGraph> => dependencyGraph(prisma, workspaceId, evaluatorId),
    /** The runs on a span by dependency layer, then start time. */
    runsInOrder: (workspaceId: string, spanId: string): Promise<LayeredRun[]> => spanRunsInOrder(prisma, workspaceId, spanId),
  };
}

/** The dependencies service. */
export type DependencyService = ReturnType<typeof createDependencyService>;
