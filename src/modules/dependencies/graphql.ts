import { builder } from "../../graphql/builder.js";
import { GateSpansEnum } from "../../graphql/enums.js";
import type { DependencyEdge, Gate } from "./service.js";

/** A gate as read back. */
const GateRef = builder.objectRef<Gate>("DependencyGate").implement({
  description: "The dependent runs only when this score of the dependency passes (combine.passed); else its run is skipped.",
  fields: (t) => ({
    score: t.exposeString("score"),
    at: t.float({ nullable: true, description: "The threshold of a NUMERIC score (null: 0.5).", resolve: (g) => g.at ?? null }),
    spans: t.field({ type: GateSpansEnum, nullable: true, description: "A trace or session evaluator's gate: which spans of the group must pass (any, all); null on a span evaluator's.", resolve: (g) => g.spans ?? null }),
  }),
});

const EdgeRef = builder.objectRef<DependencyEdge>("EvaluatorDependency").implement({
  description: "An evaluator dependency: `evaluator` runs after `dependsOn` on the same span or item and reads its scores with ctx.score.",
  fields: (t) => ({
    evaluator: t.prismaField({ type: "Evaluator", description: "The dependent: the evaluator that runs after `dependsOn` (the one whose `dependencies` list this edge is in).", resolve: (query, e, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: e.evaluatorId } }) }),
    dependsOn: t.prismaField({ type: "Evaluator", description: "The dependency: the evaluator named in the input's `dependencies[].evaluator`, whose scores the dependent reads.", resolve: (query, e, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: e.dependsOnId } }) }),
    gate: t.field({ type: GateRef, nullable: true, resolve: (e) => e.gate }),
    inferred: t.boolean({
      description: 'True when found in the code (a literal ctx.score("Name", ...)) rather than declared in `dependencies`; declared ones keep their gates.',
      resolve: (e) => e.inferred,
    }),
  }),
});

const NodeRef = builder.objectRef<{ evaluatorId: string; layer: number }>("DependencyGraphNode").implement({
  fields: (t) => ({
    evaluator: t.prismaField({ type: "Evaluator", resolve: (query, n, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: n.evaluatorId } }) }),
    layer: t.exposeInt("layer", { description: "0: depends on none of the graph; n: only on layers before n." }),
  }),
});

const GraphRef = builder.objectRef<{ nodes: { evaluatorId: string; layer: number }[]; edges: DependencyEdge[] }>("DependencyGraph").implement({
  description: "An evaluator with what it depends on and what depends on it, transitively, in layers.",
  fields: (t) => ({
    nodes: t.field({ type: [NodeRef], resolve: (g) => g.nodes }),
    edges: t.field({ type: [EdgeRef], resolve: (g) => g.edges }),
  }),
});

builder.prismaObjectFields("Evaluator", (t) => ({
  dependencies: t.field({
    type: [EdgeRef],
    description: "The evaluators it runs after: the declared ones in the order given, with their gates, then those inferred from its code (`inferred`).",
    resolve: (e, _a, ctx) => ctx.services.dependencies.dependenciesOf(ctx.principal, e.id),
  }),
  dependents: t.prismaField({
    type: ["Evaluator"],
    description: "The evaluators that run after it.",
    resolve: async (query, e, _a, ctx) => {
      const ids = await ctx.services.dependencies.dependentsOf(ctx.principal, e.id);
      return ctx.prisma.evaluator.findMany({ ...query, where: { id: { in: ids } }, orderBy: { createdAt: "asc" } });
    },
  }),
  dependencyGraph: t.field({
    type: GraphRef,
    description: "Its dependency graph: itself, its dependencies and its dependents, transitively, in layers.",
    resolve: (e, _a, ctx) => ctx.services.dependencies.graph(ctx.principal.workspaceId, e.id),
  }),
}));
