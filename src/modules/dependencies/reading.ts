import type { Run } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { downstreamOf, layerOf, upstreamOf } from "./graph.js";
import { toDependencyMap, workspaceEdges, type DependencyEdge } from "./store.js";

/** The dependency graph around one evaluator: what it depends on and what depends on it, transitively. */
export interface DependencyGraph {
  /** Every evaluator of the graph with its layer (0: depends on none of the graph). */
  nodes: { evaluatorId: string; layer: number }[];
  /** The edges among them. */
  edges: DependencyEdge[];
}

/** The dependency graph of an evaluator: itself, its dependencies and its dependents, transitively, in layers. */
export async function dependencyGraph(prisma: PrismaClient, workspaceId: string, evaluatorId: string): Promise<DependencyGraph> {
  const edges = await workspaceEdges(prisma, workspaceId);
  const map = toDependencyMap(edges);
  const ids = [evaluatorId, ...upstreamOf(evaluatorId, map), ...downstreamOf(evaluatorId, map)];
  const inGraph = new Set(ids);
  const layers = layerOf(ids, map);
  return {
    nodes: ids.map((id) => ({ evaluatorId: id, layer: layers.get(id)! })).sort((a, b) => a.layer - b.layer),
    edges: edges.filter((e) => inGraph.has(e.evaluatorId) && inGraph.has(e.dependsOnId)),
  };
}

/** A run with its dependency layer on the span. */
export type LayeredRun = Run & { dependencyLayer: number };

/**
 * The runs on a span in the order they ran: by dependency layer (among the evaluators that ran
 * there), then start time. Skipped runs keep their reason (`skipReason`).
 */
export async function spanRunsInOrder(prisma: PrismaClient, workspaceId: string, spanId: string): Promise<LayeredRun[]> {
  const runs = await prisma.run.findMany({ where: { spanId, workspaceId } });
  const layers = layerOf(runs.map((r) => r.evaluatorId), toDependencyMap(await workspaceEdges(prisma, workspaceId)));
  const time = (r: Run) => (r.startedAt ?? r.createdAt).getTime();
  return runs
    .map((r) => ({ ...r, dependencyLayer: layers.get(r.evaluatorId) ?? 0 }))
    .sort((a, b) => a.dependencyLayer - b.dependencyLayer || time(a) - time(b));
}
