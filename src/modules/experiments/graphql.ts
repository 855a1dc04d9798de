import { encodeGlobalID, resolveOffsetConnection } from "@pothos/plugin-relay";
import type { Experiment } from "../../generated/prisma/client.js";
import { builder } from "../../graphql/builder.js";
import type { ExperimentEvaluatorSource, ExperimentStatus, RunOutcome } from "../../lib/closed-lists.js";
import { ExperimentEvaluatorSourceEnum, ExperimentStatusEnum, RunOutcomeEnum } from "../../graphql/enums.js";
import { PAGE_SIZE, pageSizeExtension, type PageSize } from "../../graphql/connections.js";
import { DatasetItemRef, DatasetRef } from "../datasets/graphql.js";
import { EvaluatorRef } from "../evaluators/graphql.js";
import { scoreSummaryFields } from "../runs/score-summary-graphql.js";
import { uuidOrNil } from "../../lib/uuid.js";
import { TemplateRef } from "../templates/graphql.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { compareExperimentsInputSchema, createExperimentInputSchema, DEFAULT_COMPARE_LIMIT, experimentItemFilterSchema } from "./schemas.js";
import type {
  Comparison,
  ExperimentEvaluatorWait,
  ExperimentItem,
  ExperimentItemWait,
  ExperimentProgress,
  ExperimentProgressEvent,
  ItemChange,
  MissingDependencyCount,
  OutcomeCount,
  ScoreDelta,
  ScoreSummary,
} from "./service.js";

const WaitedEvaluatorRef = builder.objectRef<{ evaluatorId: string; name: string }>("ExperimentWaitedEvaluator").implement({
  description: "An external evaluator whose scores are waited for.",
  fields: (t) => ({
    evaluatorId: t.id({ description: "Its global id.", resolve: (w) => encodeGlobalID("Evaluator", w.evaluatorId) }),
    name: t.exposeString("name"),
  }),
});

const EvaluatorWaitRef = builder.objectRef<ExperimentEvaluatorWait>("ExperimentEvaluatorWait").implement({
  description: "An evaluator of the experiment whose items wait for the posted scores of an external evaluator (submitScores), until the experiment's wait ends.",
  fields: (t) => ({
    evaluatorId: t.id({ description: "The waiting evaluator's global id.", resolve: (w) => encodeGlobalID("Evaluator", w.evaluatorId) }),
    evaluatorName: t.exposeString("evaluatorName"),
    items: t.exposeInt("items", { description: "Its items that wait." }),
    waitingFor: t.field({ type: [WaitedEvaluatorRef], description: "The external evaluators it waits for (directly, or through a dependency).", resolve: (w) => w.waitingFor }),
    reason: t.exposeString("reason", { description: "For what, through what, until when, in a sentence." }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", description: "When it runs without the missing scores." }),
  }),
});

const ItemWaitRef = builder.objectRef<ExperimentItemWait>("ExperimentItemWait").implement({
  description: "An evaluator that waits on one item of the experiment for the posted scores of an external evaluator.",
  fields: (t) => ({
    item: t.prismaField({ type: "DatasetItem", resolve: (query, w, _a, ctx) => ctx.prisma.datasetItem.findUniqueOrThrow({ ...query, where: { id: w.datasetItemId } }) }),
    position: t.exposeInt("position", { description: "The item's position in the dataset." }),
    externalId: t.exposeString("externalId", { nullable: true, description: "The item's own id in its dataset, when it has one." }),
    evaluatorId: t.id({ description: "The waiting evaluator's global id.", resolve: (w) => encodeGlobalID("Evaluator", w.evaluatorId) }),
    evaluatorName: t.exposeString("evaluatorName"),
    waitingFor: t.field({ type: [WaitedEvaluatorRef], resolve: (w) => w.waitingFor }),
    reason: t.exposeString("reason"),
    since: t.expose("since", { type: "DateTime", description: "When the wait began (the experiment's creation)." }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", description: "When it runs without the missing scores (the experiment's dependencyWaitSeconds after creation)." }),
  }),
});

const ProgressRef = builder.objectRef<ExperimentProgress>("ExperimentProgress").implement({
  description: "Items by state: done + failed + skipped + pending = total; of the pending, those waiting for posted scores, and until when.",
  fields: (t) => ({
    total: t.exposeInt("total", { description: "Items the experiment covers." }),
    done: t.exposeInt("done", { description: "Items whose every evaluator ran ok." }),
    failed: t.exposeInt("failed", { description: "Items with a run that did not end ok (retryExperiment runs them again)." }),
    skipped: t.exposeInt("skipped", { description: "Items with a run skipped by a dependency's gate and no failure." }),
    pending: t.exposeInt("pending", { description: "Items still waiting for an evaluator." }),
    runsRecorded: t.exposeInt("runsRecorded"),
    runsTotal: t.exposeInt("runsTotal", { description: "Items × evaluators." }),
    fraction: t.float({ description: "runsRecorded / runsTotal, 0 to 1: for a progress bar.", resolve: (p) => (p.runsTotal ? p.runsRecorded / p.runsTotal : 1) }),
    waiting: t.exposeInt("waiting", { description: "Pending items with an evaluator that waits for posted scores of an external evaluator (Experiment.waits lists them)." }),
    waitingUntil: t.expose("waitingUntil", { type: "DateTime", nullable: true, description: "When the wait ends and they run without the missing scores; null when nothing waits." }),
    waits: t.field({ type: [EvaluatorWaitRef], description: "Per waiting evaluator: its items that wait, for what, until when.", resolve: (p) => p.waits }),
  }),
});

const ScoreSummaryRef = builder.objectRef<ScoreSummary>("ExperimentScoreSummary").implement({
  description: "One score name of one evaluator over an experiment.",
  fields: (t) => ({
    ...scoreSummaryFields(t),
    runsWithMissingDependencies: t.exposeInt("runsWithMissingDependencies", {
      description: "Runs of this evaluator that read a dependency with no scores for their item (ctx.score returned its default): see Experiment.missingDependencies.",
    }),
  }),
});

const MissingDependencyRef = builder.objectRef<MissingDependencyCount>("ExperimentMissingDependency").implement({
  description: "Runs of one evaluator that read a dependency while it had no scores for their item (not posted before the wait ended, failed, or not run).",
  fields: (t) => ({
    evaluatorName: t.exposeString("evaluatorName"),
    evaluator: t.prismaField({ type: "Evaluator", resolve: (query, s, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: s.evaluatorId } }) }),
    dependency: t.exposeString("dependency", { description: "The dependency's name." }),
    runs: t.exposeInt("runs"),
  }),
});

const OutcomeCountRef = builder.objectRef<OutcomeCount>("ExperimentOutcomeCount").implement({
  description: "Runs of one evaluator that ended with one outcome.",
  fields: (t) => ({
    evaluatorName: t.exposeString("evaluatorName"),
    evaluator: t.prismaField({ type: "Evaluator", resolve: (query, s, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: s.evaluatorId } }) }),
    outcome: t.field({ type: RunOutcomeEnum, resolve: (parent) => parent.outcome as RunOutcome }),
    count: t.exposeInt("count"),
  }),
});

/** An item of an experiment with its runs there. */
const ExperimentItemRef = builder.objectRef<ExperimentItem>("ExperimentItem").implement({
  description: "A dataset item with the runs (and scores) of one experiment on it.",
  fields: (t) => ({
    item: t.field({ type: DatasetItemRef, resolve: (p) => p.item }),
    runs: t.prismaField({
      type: ["Run"],
      description: "One run per evaluator, in the experiment's evaluator order.",
      resolve: (query, p, _a, ctx) => ctx.prisma.run.findMany({ ...query, where: { experimentId: p.experimentId, datasetItemId: p.item.id }, orderBy: { createdAt: "asc" } }),
    }),
  }),
});

const itemFilter = describedBy(experimentItemFilterSchema);
const ItemFilterRef = builder.inputType("ExperimentItemFilter", {
  description: "Narrow an experiment's items by a score and/or a run outcome (all given parts must hold).",
  fields: (t) => ({
    evaluatorId: t.globalID({ for: EvaluatorRef, ...itemFilter("evaluatorId") }),
    scoreName: t.string(itemFilter("scoreName")),
    minValue: t.float(itemFilter("minValue")),
    maxValue: t.float(itemFilter("maxValue")),
    passed: t.boolean(itemFilter("passed")),
    category: t.string(itemFilter("category")),
    outcome: t.field({ type: RunOutcomeEnum, ...itemFilter("outcome") }),
  }),
});

/** Items of an experiment: 50 by default (results are read in bulk), at most 100 like every connection. */
const ITEMS_PAGE_SIZE: PageSize = { default: 50, max: PAGE_SIZE.max };

/** An experiment of the caller's workspace. */
export const ExperimentRef = builder.prismaNode("Experiment", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "Evaluators run over a dataset's items as queued batch jobs, with progress, per-score summaries and filterable results.",
  fields: (t) => ({
    name: t.exposeString("name"),
    status: t.field({ type: ExperimentStatusEnum, resolve: (parent) => parent.status as ExperimentStatus }),
    dataset: t.relation("dataset"),
    itemCount: t.exposeInt("itemCount", { description: "Items covered (the dataset's size at creation)." }),
    batchSize: t.exposeInt("batchSize", { description: "Items per queued job." }),
    retries: t.exposeInt("retries"),
    evaluators: t.relation("evaluators", { description: "The evaluators, in the order given.", query: { orderBy: { position: "asc" } } }),
    progress: t.field({ type: ProgressRef, resolve: (e, _a, ctx) => ctx.services.experiments.progress(e) }),
    summary: t.field({ type: [ScoreSummaryRef], description: "Per evaluator and score name: count, mean, pass rate.", resolve: (e, _a, ctx) => ctx.services.experiments.summary(ctx.principal, e.id) }),
    missingDependencies: t.field({
      type: [MissingDependencyRef],
      description: "Per evaluator and dependency: runs that read it with no scores for their item. Empty when every dependency had its scores.",
      resolve: (e, _a, ctx) => ctx.services.experiments.missingDependencies(ctx.principal, e.id),
    }),
    dependencyWaitSeconds: t.exposeInt("dependencyWaitSeconds", { description: "How long dependents wait for external scores posted for its items, from creation." }),
    waits: t.connection({
      type: ItemWaitRef,
      description: "Each (item, evaluator) that waits for posted scores of an external evaluator now, with the reason and the deadline, in item then evaluator order; empty once the wait is over or the experiment finished.",
      extensions: pageSizeExtension(ITEMS_PAGE_SIZE),
      resolve: (experiment, args, ctx) =>
        resolveOffsetConnection({ args, defaultSize: ITEMS_PAGE_SIZE.default, maxSize: ITEMS_PAGE_SIZE.max }, (page) => ctx.services.experiments.itemWaits(experiment, page)),
    }),
    runsByOutcome: t.field({ type: [OutcomeCountRef], description: "Runs per evaluator and outcome (ok included).", resolve: (e, _a, ctx) => ctx.services.experiments.runsByOutcome(ctx.principal, e.id) }),
    failures: t.field({
      type: [OutcomeCountRef],
      description: "Failed runs per evaluator and outcome (every outcome but ok and skipped).",
      resolve: (e, _a, ctx) => ctx.services.experiments.failures(ctx.principal, e.id),
    }),
    items: t.connection({
      type: ExperimentItemRef,
      description: "The items with their runs, in dataset order, filtered by score value and outcome.",
      args: { filter: t.arg({ type: ItemFilterRef }) },
      extensions: pageSizeExtension(ITEMS_PAGE_SIZE),
      resolve: (experiment, args, ctx) => {
        const filter = args.filter ? { ...args.filter, evaluatorId: args.filter.evaluatorId?.id } : {};
        return resolveOffsetConnection({ args, defaultSize: ITEMS_PAGE_SIZE.default, maxSize: ITEMS_PAGE_SIZE.max }, (page) =>
          ctx.services.experiments.items(ctx.principal, experiment.id, filter, page),
        );
      },
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true }),
    cancelledAt: t.expose("cancelledAt", { type: "DateTime", nullable: true }),
  }),
});

builder.prismaObject("ExperimentEvaluator", {
  description: "An evaluator of an experiment, with the template version and ctx.params fixed at creation.",
  fields: (t) => ({
    evaluator: t.relation("evaluator"),
    templateVersion: t.relation("templateVersion"),
    params: t.expose("params", { type: "JSON", description: "ctx.params of every run." }),
    source: t.field({ type: ExperimentEvaluatorSourceEnum, resolve: (parent) => parent.source as ExperimentEvaluatorSource }),
    position: t.exposeInt("position"),
  }),
});

builder.prismaObjectFields("Run", (t) => ({
  experiment: t.relation("experiment", { nullable: true, description: "The experiment (null for a run on a live span)." }),
  datasetItem: t.relation("datasetItem", { nullable: true, description: "The dataset item (null for a run on a live span)." }),
}));

const ScoreDeltaRef = builder.objectRef<ScoreDelta>("ExperimentScoreDelta").implement({
  description: "One score (matched by evaluator name and score name) in both experiments.",
  fields: (t) => ({
    evaluatorName: t.exposeString("evaluatorName"),
    name: t.exposeString("name"),
    base: t.field({ type: ScoreSummaryRef, nullable: true, resolve: (d) => d.base }),
    candidate: t.field({ type: ScoreSummaryRef, nullable: true, resolve: (d) => d.candidate }),
    meanDelta: t.exposeFloat("meanDelta", { nullable: true, description: "candidate mean − base mean." }),
    passRateDelta: t.exposeFloat("passRateDelta", { nullable: true, description: "candidate pass rate − base pass rate." }),
    improved: t.exposeInt("improved", { description: "Items whose score moved the better way (or now passes)." }),
    regressed: t.exposeInt("regressed", { description: "Items whose score moved the worse way (or now fails)." }),
    changed: t.exposeInt("changed", { description: "Items whose score changed without a direction (a category)." }),
  }),
});

const ItemChangeRef = builder.objectRef<ItemChange>("ExperimentItemChange").implement({
  description: "An item whose score, or run outcome, differs between the two experiments.",
  fields: (t) => ({
    item: t.prismaField({ type: "DatasetItem", resolve: (query, c, _a, ctx) => ctx.prisma.datasetItem.findUniqueOrThrow({ ...query, where: { id: c.datasetItemId } }) }),
    position: t.exposeInt("position"),
    externalId: t.exposeString("externalId", { nullable: true }),
    evaluatorName: t.exposeString("evaluatorName"),
    scoreName: t.exposeString("scoreName", { nullable: true, description: "null: the run outcome changed." }),
    baseValue: t.field({ type: "JSON", nullable: true, resolve: (c) => c.baseValue ?? null }),
    candidateValue: t.field({ type: "JSON", nullable: true, resolve: (c) => c.candidateValue ?? null }),
    basePassed: t.exposeBoolean("basePassed", { nullable: true }),
    candidatePassed: t.exposeBoolean("candidatePassed", { nullable: true }),
    baseOutcome: t.exposeString("baseOutcome", { nullable: true }),
    candidateOutcome: t.exposeString("candidateOutcome", { nullable: true }),
    direction: t.exposeString("direction", { description: "improved, regressed or changed." }),
  }),
});

const ComparisonRef = builder.objectRef<Comparison>("ExperimentComparison").implement({
  description: "Two experiments on the same dataset: per-score deltas and the items that changed.",
  fields: (t) => ({
    base: t.prismaField({ type: "Experiment", resolve: (query, c, _a, ctx) => ctx.prisma.experiment.findUniqueOrThrow({ ...query, where: { id: c.baseId } }) }),
    candidate: t.prismaField({ type: "Experiment", resolve: (query, c, _a, ctx) => ctx.prisma.experiment.findUniqueOrThrow({ ...query, where: { id: c.candidateId } }) }),
    scores: t.field({ type: [ScoreDeltaRef], resolve: (c) => c.scores }),
    changedItems: t.exposeInt("changedItems", { description: "Items with at least one change." }),
    changeCount: t.exposeInt("changeCount", { description: "Every change, counted." }),
    changes: t.field({ type: [ItemChangeRef], description: "The changes in item order (at most `limit`).", resolve: (c) => c.changes }),
  }),
});

const ProgressEventRef = builder.objectRef<ExperimentProgressEvent>("ExperimentProgressEvent").implement({
  description: "The status and progress of an experiment, sent when they change.",
  fields: (t) => ({
    experiment: t.prismaField({ type: "Experiment", resolve: (query, e, _a, ctx) => ctx.prisma.experiment.findUniqueOrThrow({ ...query, where: { id: e.experimentId } }) }),
    status: t.field({ type: ExperimentStatusEnum, resolve: (parent) => parent.status as ExperimentStatus }),
    progress: t.field({ type: ProgressRef, resolve: (e) => e.progress }),
  }),
});

builder.queryFields((t) => ({
  experiments: t.prismaConnection({
    type: "Experiment",
    cursor: "id",
    description: "The workspace's experiments, newest first.",
    args: { datasetId: t.arg.globalID({ for: DatasetRef }), name: t.arg.string({ description: "Only those of this name (names need not be unique)." }) },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.experiment.findMany({
        ...query,
        where: { workspaceId: ctx.principal.workspaceId, ...(args.datasetId ? { datasetId: uuidOrNil(args.datasetId.id) } : {}), ...(args.name ? { name: args.name } : {}) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      }),
  }),
  experiment: t.prismaField({
    type: "Experiment",
    args: { id: t.arg.globalID({ for: ExperimentRef, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.services.experiments.getExperiment(ctx.principal.workspaceId, args.id.id);
      return ctx.prisma.experiment.findUniqueOrThrow({ ...query, where: { id: found.id } });
    },
  }),
  compareExperiments: t.field({
    type: ComparisonRef,
    description: "Compares two experiments on the same dataset (evaluators matched by name).",
    args: {
      baseId: t.arg.globalID({ for: ExperimentRef, required: true }),
      candidateId: t.arg.globalID({ for: ExperimentRef, required: true }),
      limit: t.arg.int({ defaultValue: DEFAULT_COMPARE_LIMIT, ...describedBy(compareExperimentsInputSchema)("limit") }),
    },
    resolve: (_root, args, ctx) => ctx.services.experiments.compare(ctx.principal, { baseId: args.baseId.id, candidateId: args.candidateId.id, limit: args.limit }),
  }),
}));

/** The field builder of a payload that holds an experiment row. */
type PayloadFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, Experiment>;

/** The Experiment output field of the experiment mutations. */
const experimentField = {
  outputFields: (t: PayloadFieldBuilder) => ({
    experiment: t.prismaField({ type: "Experiment", resolve: (query, e, _a, ctx) => ctx.prisma.experiment.findUniqueOrThrow({ ...query, where: { id: e.id } }) }),
  }),
};

const createInput = describedBy(createExperimentInputSchema);
builder.relayMutationField(
  "createExperiment",
  {
    inputFields: (t) => ({
      datasetId: t.globalID({ for: DatasetRef, required: true }),
      name: t.string(createInput("name")),
      evaluatorIds: t.globalIDList({ for: EvaluatorRef, ...createInput("evaluatorIds") }),
      templateIds: t.globalIDList({ for: TemplateRef, ...createInput("templateIds") }),
      batchSize: t.int(createInput("batchSize")),
      dependencyWaitSeconds: t.int(createInput("dependencyWaitSeconds")),
    }),
  },
  {
    resolve: (_root, { input }, ctx) =>
      ctx.services.experiments.createExperiment(ctx.principal, {
        datasetId: input.datasetId.id,
        ...(input.name != null ? { name: input.name } : {}),
        ...(input.evaluatorIds ? { evaluatorIds: input.evaluatorIds.map((g) => g.id) } : {}),
        ...(input.templateIds ? { templateIds: input.templateIds.map((g) => g.id) } : {}),
        ...(input.batchSize != null ? { batchSize: input.batchSize } : {}),
        ...(input.dependencyWaitSeconds != null ? { dependencyWaitSeconds: input.dependencyWaitSeconds } : {}),
      }),
  },
  experimentField,
);

builder.relayMutationField(
  "cancelExperiment",
  { inputFields: (t) => ({ id: t.globalID({ for: ExperimentRef, required: true }) }) },
  { resolve: (_root, { input }, ctx) => ctx.services.experiments.cancelExperiment(ctx.principal, input.id.id) },
  experimentField,
);

builder.relayMutationField(
  "retryExperiment",
  {
    description: "Runs the failed and unfinished items again (also resumes a cancelled experiment).",
    inputFields: (t) => ({ id: t.globalID({ for: ExperimentRef, required: true }) }),
  },
  { resolve: async (_root, { input }, ctx) => (await ctx.services.experiments.retryExperiment(ctx.principal, input.id.id)).experiment },
  experimentField,
);

builder.subscriptionField("experimentProgress", (t) =>
  t.field({
    type: ProgressEventRef,
    description: "The experiment's status and progress whenever they change (over SSE: Accept: text/event-stream); ends when it completes or is cancelled.",
    args: { id: t.arg.globalID({ for: ExperimentRef, required: true }) },
    subscribe: (_root, args, ctx) => ctx.services.experiments.watchProgress(ctx.principal, args.id.id),
    resolve: (event) => event as ExperimentProgressEvent,
  }),
);
