import type { Run } from "../../generated/prisma/client.js";
import { builder } from "../../graphql/builder.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { ScoreDataTypeEnum } from "../../graphql/enums.js";
import { EvaluatorRef } from "../evaluators/graphql.js";
import { RunRef } from "../runs/graphql.js";
import { SpanRef } from "../spans/graphql.js";
import { evaluatorRefOf } from "./graphql-inputs.js";
import { DependencyWaitRef } from "./waiting-graphql.js";
import { postedScoreSchema } from "./schemas.js";
import type { DependencyEdge, Gate } from "./service.js";

/** A gate as read back. */
const GateRef = builder.objectRef<Gate>("DependencyGate").implement({
  description: "The dependent runs only when this score of the dependency passes (combine.passed); else its run is skipped.",
  fields: (t) => ({
    score: t.exposeString("score"),
    at: t.float({ nullable: true, description: "The threshold of a NUMERIC score (null: 0.5).", resolve: (g) => g.at ?? null }),
  }),
});

const EdgeRef = builder.objectRef<DependencyEdge>("EvaluatorDependency").implement({
  description: "An evaluator dependency: `evaluator` runs after `dependsOn` on the same span or item and reads its scores with ctx.score.",
  fields: (t) => ({
    evaluator: t.prismaField({ type: "Evaluator", resolve: (query, e, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: e.evaluatorId } }) }),
    dependsOn: t.prismaField({ type: "Evaluator", resolve: (query, e, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: e.dependsOnId } }) }),
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

const OrderedRunRef = builder.objectRef<{ layer: number; run: Run }>("OrderedRun").implement({
  fields: (t) => ({
    layer: t.exposeInt("layer", { description: "Its evaluator's dependency layer among the evaluators that ran on the span." }),
    run: t.field({ type: RunRef, resolve: (r) => r.run }),
  }),
});

builder.prismaObjectFields("Span", (t) => ({
  runsInOrder: t.field({
    type: [OrderedRunRef],
    description: "The runs on this span in dependency order (layer, then start time); a skipped run has its reason (run.skipReason).",
    resolve: async (s, _a, ctx) => (await ctx.services.dependencies.runsInOrder(ctx.principal.workspaceId, s.id)).map((run) => ({ layer: run.dependencyLayer, run })),
  }),
  waiting: t.field({
    type: [DependencyWaitRef],
    description: "The evaluators queued on this span that wait for dependencies (e.g. an LLM judge that has not posted): for what, since when, until when.",
    resolve: (s, _a, ctx) => ctx.services.spans.waiting(ctx.principal.workspaceId, s.id),
  }),
}));

const postedScore = describedBy(postedScoreSchema);
const PostedScoreInput = builder.inputType("PostedScoreInput", {
  description: "A score: data type inferred from the value when omitted (true/false → BOOLEAN, number → NUMERIC, string → CATEGORICAL).",
  fields: (t) => ({
    name: t.string({ required: true }),
    value: t.field({ type: "JSON", ...postedScore("value") }),
    dataType: t.field({ type: ScoreDataTypeEnum }),
    higherIsBetter: t.boolean(postedScore("higherIsBetter")),
    comment: t.string(),
    metadata: t.field({ type: "JSON" }),
  }),
});

builder.relayMutationField(
  "submitScores",
  {
    inputFields: (t) => ({
      spanId: t.globalID({ for: SpanRef, description: "The live span scored; or give experimentId and datasetItemId." }),
      experimentId: t.globalID({ description: "The experiment whose dataset item is scored (with datasetItemId), instead of spanId." }),
      datasetItemId: t.globalID({ description: "The dataset item of the experiment that is scored." }),
      evaluator: t.string({ required: true, description: "The external evaluator: its name, or its id (global or UUID)." }),
      scores: t.field({ type: [PostedScoreInput], required: true }),
    }),
  },
  {
    resolve: (_root, { input }, ctx) =>
      ctx.services.dependencies.postScores(ctx.principal, {
        spanId: input.spanId?.id,
        experimentId: input.experimentId?.id,
        datasetItemId: input.datasetItemId?.id,
        evaluator: evaluatorRefOf(input.evaluator),
        scores: input.scores.map((s) => ({ ...s, value: s.value === undefined ? null : s.value })),
      }),
  },
  {
    description:
      "Posts the scores of an external evaluator (an LLM judge running elsewhere, a person) on a span, or on a dataset item of an experiment " +
      "(experimentId + datasetItemId: the experiment's dependents wait for them). Posting again replaces the earlier scores; " +
      "evaluators that depend on it and already ran on the span run again, and those waiting for these scores are released.",
    outputFields: (t) => ({
      run: t.field({ type: RunRef, resolve: (r) => r.run }),
      replaced: t.exposeBoolean("replaced", { description: "True when earlier scores were replaced." }),
      rerun: t.prismaField({
        type: ["Evaluator"],
        description: "Evaluators queued to run again on the span because they had read the earlier scores.",
        resolve: (query, r, _a, ctx) => ctx.prisma.evaluator.findMany({ ...query, where: { id: { in: r.rerun } } }),
      }),
    }),
  },
);

