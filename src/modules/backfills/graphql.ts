import { builder } from "../../graphql/builder.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { EvaluationTargetEnum, GroupCompletionEnum, RunOutcomeEnum, RunReplaceReasonEnum } from "../../graphql/enums.js";
import type { GroupCompletion, RunOutcome, RunReplaceReason } from "../../lib/closed-lists.js";
import { EvaluatorRef } from "../evaluators/graphql.js";
import { scoreSummaryFields } from "../runs/score-summary-graphql.js";
import { BACKFILL_STATUSES, backfillInputSchema, backfillSpanFilterSchema, listBackfillsInputSchema, type BackfillStatus } from "./schemas.js";
import type { Backfill, BackfillEstimate, BackfillEstimateEvaluator, BackfillOutcomeCount, BackfillProgress, BackfillScoreSummary, BackfillSnapshot } from "./service.js";

// Thin adapters over the backfills service: global ids are decoded here and the service gets raw ids.

const StatusRef = builder.enumType("BackfillStatus", {
  description: "queued: waiting for a worker; running; completed: every batch finished; cancelled; failed: a batch failed for good (see error).",
  values: BACKFILL_STATUSES,
});

const ProgressRef = builder.objectRef<BackfillProgress>("BackfillProgress").implement({
  description: "What a backfill has done so far, counted from its finished batches and the runs it wrote.",
  fields: (t) => ({
    spansTotal: t.exposeInt("spansTotal", { description: "Spans chosen at creation (traces or sessions for a trace or session evaluator)." }),
    spansDone: t.exposeInt("spansDone", { description: "Spans of the finished batches." }),
    batchesTotal: t.exposeInt("batchesTotal"),
    batchesDone: t.exposeInt("batchesDone"),
    runsRecorded: t.exposeInt("runsRecorded", { description: "Runs the finished batches recorded (also those a later backfill replaced since): the same batches as spansDone." }),
    pairsSkipped: t.exposeInt("pairsSkipped", { description: "(span, evaluator) pairs of finished batches left as they were: already evaluated (no rerun), or a dependency's rule did not match." }),
    runsSuperseded: t.exposeInt("runsSuperseded", { description: "Earlier runs this backfill replaced (rerun); each is kept in Run.history." }),
    fraction: t.exposeFloat("fraction", { description: "spansDone / spansTotal, 0 to 1: for a progress bar." }),
  }),
});

const ScoreSummaryRef = builder.objectRef<BackfillScoreSummary>("BackfillScoreSummary").implement({
  description: "One score name of one evaluator over a backfill's runs (as an experiment's summary).",
  fields: (t) => scoreSummaryFields(t),
});

const OutcomeCountRef = builder.objectRef<BackfillOutcomeCount>("BackfillOutcomeCount").implement({
  description: "Runs of one evaluator of a backfill that ended with one outcome.",
  fields: (t) => ({
    evaluator: t.prismaField({ type: "Evaluator", resolve: (query, s, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: s.evaluatorId } }) }),
    evaluatorName: t.exposeString("evaluatorName"),
    outcome: t.field({ type: RunOutcomeEnum, resolve: (parent) => parent.outcome as RunOutcome }),
    count: t.exposeInt("count"),
  }),
});

const EstimateEvaluatorRef = builder.objectRef<BackfillEstimateEvaluator>("BackfillEstimateEvaluator").implement({
  description: "What a backfill would do with one of its evaluators.",
  fields: (t) => ({
    evaluator: t.prismaField({ type: "Evaluator", resolve: (query, e, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: e.evaluatorId } }) }),
    name: t.exposeString("name"),
    source: t.exposeString("source", { description: "evaluator: the one asked for; dependency: added because an evaluator of the backfill reads its scores (includeDependencies)." }),
    readBy: t.exposeStringList("readBy", { description: "The evaluators of the backfill whose code reads its scores." }),
    templateVersion: t.exposeInt("templateVersion", { description: "The template version it runs." }),
    spansMatched: t.exposeInt("spansMatched", { description: "Chosen spans its rule matches (all of them for the evaluator asked for); for a trace or session evaluator, the chosen traces or sessions." }),
    alreadyEvaluated: t.exposeInt("alreadyEvaluated", { description: "Of those, spans (or traces, sessions) it already has a current run on (skipped unless rerun)." }),
    toRun: t.exposeInt("toRun", { description: "Runs it would record." }),
  }),
});

const EstimateRef = builder.objectRef<BackfillEstimate>("BackfillEstimate").implement({
  description: "What a backfill would read and record if created now (nothing is created).",
  fields: (t) => ({
    windowStart: t.expose("windowStart", { type: "DateTime" }),
    windowEnd: t.expose("windowEnd", { type: "DateTime" }),
    target: t.field({ type: EvaluationTargetEnum, description: "What the evaluator asked for runs on: span (one run per chosen span), trace or session (one run per chosen group).", resolve: (e) => e.target }),
    spans: t.exposeInt("spans", { description: "Spans it would read; for a trace or session evaluator, the traces or sessions chosen (the same as groups)." }),
    groups: t.exposeInt("groups", { nullable: true, description: "A trace or session evaluator: the traces or sessions chosen (maxSpans counts these), one run each; null for a span evaluator." }),
    runs: t.exposeInt("runs", { description: "Runs it would record, every evaluator together." }),
    reruns: t.exposeInt("reruns", { description: "Of those, runs that replace an earlier run (rerun): the earlier one is kept in Run.history." }),
    evaluators: t.field({ type: [EstimateEvaluatorRef], resolve: (e) => e.evaluators }),
  }),
});

const ActiveRef = builder.objectRef<{ active: number; maxConcurrent: number }>("BackfillLimits").implement({
  description: "Queued or running backfills of the workspace, and how many it may have at once.",
  fields: (t) => ({ active: t.exposeInt("active"), maxConcurrent: t.exposeInt("maxConcurrent") }),
});

/** A backfill of the caller's workspace. */
export const BackfillRef = builder.prismaNode("Backfill", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: /^[0-9a-f-]{36}$/i.test(id) ? id : "00000000-0000-0000-0000-000000000000", workspaceId: ctx.principal.workspaceId }),
  description: "An evaluator run again over stored spans (its live rule, a window, a filter, a sample rate, a maximum), as queued batch jobs, with progress and a summary.",
  fields: (t) => ({
    name: t.exposeString("name"),
    status: t.field({ type: StatusRef, resolve: (b) => b.status as BackfillStatus }),
    error: t.exposeString("error", { nullable: true, description: "Why it failed (status failed)." }),
    evaluators: t.relation("evaluators", { description: "The evaluator asked for, then its dependencies (includeDependencies).", query: { orderBy: { position: "asc" } } }),
    windowStart: t.expose("windowStart", { type: "DateTime" }),
    windowEnd: t.expose("windowEnd", { type: "DateTime" }),
    filter: t.expose("spanFilter", {
      type: "JSON",
      description: "The span filter: {spanNamePattern, attributeEquals, attributeContains, resourceAttributeEquals, rootSpansOnly, traceIds, status, outcomes, scoreName, scoreEvaluatorId, scoreMin, scoreMax, scoreValue}.",
    }),
    sampleRate: t.exposeFloat("sampleRate"),
    maxSpans: t.exposeInt("maxSpans"),
    rerun: t.exposeBoolean("rerun", { description: "Spans already evaluated are run again (the earlier run kept in history)." }),
    includeDependencies: t.exposeBoolean("includeDependencies"),
    spanCount: t.exposeInt("spanCount", { description: "Spans chosen at creation (traces or sessions for a trace or session evaluator: one run each)." }),
    batchSize: t.exposeInt("batchSize", { description: "Spans per queued job." }),
    progress: t.field({ type: ProgressRef, resolve: (b, _a, ctx) => ctx.services.backfills.progress(b) }),
    summary: t.field({ type: [ScoreSummaryRef], description: "Per evaluator and score name: count, mean, pass rate.", resolve: (b, _a, ctx) => ctx.services.backfills.summary(b) }),
    runsByOutcome: t.field({ type: [OutcomeCountRef], description: "Runs per evaluator and outcome (ok included).", resolve: (b, _a, ctx) => ctx.services.backfills.runsByOutcome(b) }),
    failures: t.field({
      type: [OutcomeCountRef],
      description: "Failed runs per evaluator and outcome (every outcome but ok and skipped).",
      resolve: async (b, _a, ctx) => (await ctx.services.backfills.runsByOutcome(b)).filter((c) => c.outcome !== "ok" && c.outcome !== "skipped"),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true }),
    cancelledAt: t.expose("cancelledAt", { type: "DateTime", nullable: true }),
  }),
});

builder.prismaObject("BackfillEvaluator", {
  description: "An evaluator of a backfill, with the template version and ctx.params fixed at creation.",
  fields: (t) => ({
    evaluator: t.relation("evaluator"),
    templateVersion: t.relation("templateVersion"),
    params: t.expose("params", { type: "JSON", description: "ctx.params of every run." }),
    source: t.exposeString("source", { description: "evaluator: the one asked for; dependency: added because it depends on it." }),
    position: t.exposeInt("position"),
  }),
});

builder.prismaObject("RunHistory", {
  description: "An earlier run of an evaluator on a span, a trace, a session or an experiment's item, replaced and kept as it was; `reason` says why.",
  fields: (t) => ({
    traceId: t.exposeString("traceId", { nullable: true, description: "A trace evaluator's run: its trace; null for every other run." }),
    sessionId: t.exposeString("sessionId", { nullable: true, description: "A session evaluator's run: its session key; null for every other run." }),
    completion: t.field({
      type: GroupCompletionEnum,
      nullable: true,
      description: "A trace or session run: why it ran when it did (end_marker, quiet_period, max_wait); null for a span or item run, and for a backfill's run.",
      resolve: (h) => h.completion as GroupCompletion | null,
    }),
    groupSpanCount: t.exposeInt("groupSpanCount", { nullable: true, description: "A trace or session run: the spans the group had when it ran (before the caps)." }),
    documentCapped: t.exposeBoolean("documentCapped", { description: "Its document was cut to the evaluator's caps." }),
    reason: t.field({ type: RunReplaceReasonEnum, description: "Why it was replaced.", resolve: (parent) => parent.reason as RunReplaceReason }),
    outcome: t.field({ type: RunOutcomeEnum, resolve: (parent) => parent.outcome as RunOutcome }),
    skipReason: t.exposeString("skipReason", { nullable: true }),
    scores: t.expose("scores", { type: "JSON", description: "Its scores as they were: [{name, dataType, value, numericValue, higherIsBetter, comment, metadata, position}]." }),
    templateVersion: t.prismaField({
      type: "TemplateVersion",
      nullable: true,
      resolve: (query, h, _a, ctx) => (h.templateVersionId ? ctx.prisma.templateVersion.findUnique({ ...query, where: { id: h.templateVersionId } }) : null),
    }),
    params: t.expose("params", { type: "JSON" }),
    errorType: t.exposeString("errorType", { nullable: true }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
    backfill: t.prismaField({ type: "Backfill", nullable: true, description: "The backfill that wrote it (null: a live run).", resolve: (query, h, _a, ctx) => (h.backfillId ? ctx.prisma.backfill.findUnique({ ...query, where: { id: h.backfillId } }) : null) }),
    supersededBy: t.prismaField({ type: "Backfill", nullable: true, description: "The backfill whose run replaced it (reason backfill_rerun); null for every other reason.", resolve: (query, h, _a, ctx) => (h.supersededByBackfillId ? ctx.prisma.backfill.findUnique({ ...query, where: { id: h.supersededByBackfillId } }) : null) }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    supersededAt: t.expose("supersededAt", { type: "DateTime" }),
  }),
});

builder.prismaObjectFields("Run", (t) => ({
  backfill: t.relation("backfill", { nullable: true, description: "The backfill that wrote this run (null for a live or experiment run)." }),
  history: t.prismaField({
    type: ["RunHistory"],
    description: "Earlier runs of this evaluator on this run's span, trace, session or experiment item that were replaced (see RunHistory.reason), newest first; this run is the current one.",
    resolve: (query, run, _a, ctx) => {
      const target = run.spanId
        ? { spanId: run.spanId }
        : run.traceId
          ? { traceId: run.traceId }
          : run.sessionId
            ? { sessionId: run.sessionId }
            : run.experimentId && run.datasetItemId
              ? { experimentId: run.experimentId, datasetItemId: run.datasetItemId }
              : null;
      return target ? ctx.prisma.runHistory.findMany({ ...query, where: { ...target, evaluatorId: run.evaluatorId, workspaceId: run.workspaceId }, orderBy: { supersededAt: "desc" } }) : Promise.resolve([]);
    },
  }),
}));

const spanFilter = describedBy(backfillSpanFilterSchema);
const SpanFilterInput = builder.inputType("BackfillSpanFilterInput", {
  description: "A span filter on top of the evaluator's rule; every given part must hold.",
  fields: (t) => ({
    spanNamePattern: t.string(spanFilter("spanNamePattern")),
    attributeEquals: t.field({ type: "JSON", ...spanFilter("attributeEquals") }),
    traceIds: t.stringList(spanFilter("traceIds")),
    status: t.string(spanFilter("status")),
    attributeContains: t.field({ type: "JSON", ...spanFilter("attributeContains") }),
    resourceAttributeEquals: t.field({ type: "JSON", ...spanFilter("resourceAttributeEquals") }),
    rootSpansOnly: t.boolean(spanFilter("rootSpansOnly")),
    outcomes: t.field({ type: [RunOutcomeEnum], ...spanFilter("outcomes") }),
    scoreName: t.string(spanFilter("scoreName")),
    scoreEvaluatorId: t.globalID({ for: EvaluatorRef, ...spanFilter("scoreEvaluatorId") }),
    scoreMin: t.float(spanFilter("scoreMin")),
    scoreMax: t.float(spanFilter("scoreMax")),
    scoreValue: t.field({ type: "JSON", ...spanFilter("scoreValue") }),
  }),
});

/** The schema types of the builder (for the field builders shared below). */
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const backfill = describedBy(backfillInputSchema);
/** The fields of createBackfill's input and of estimateBackfill's: one declaration. */
const backfillFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">) => ({
    evaluatorId: t.globalID({ for: EvaluatorRef, required: true, ...backfill("evaluatorId") }),
    name: t.string(backfill("name")),
    templateVersion: t.int(backfill("templateVersion")),
    windowStart: t.field({ type: "DateTime", required: true, ...backfill("windowStart") }),
    windowEnd: t.field({ type: "DateTime", ...backfill("windowEnd") }),
    filter: t.field({ type: SpanFilterInput, ...backfill("filter") }),
    sampleRate: t.float(backfill("sampleRate")),
    maxSpans: t.int(backfill("maxSpans")),
    rerun: t.boolean(backfill("rerun")),
    includeDependencies: t.boolean(backfill("includeDependencies")),
    batchSize: t.int(backfill("batchSize")),
});

const BackfillInput = builder.inputType("BackfillInput", {
  description: "What selects a backfill's spans (or, for a trace or session evaluator, its traces or sessions) and how it runs (estimateBackfill; createBackfill takes the same fields).",
  fields: backfillFields,
});

/** The service input of a BackfillInput: global ids decoded, nulls dropped. */
function serviceInput(input: typeof BackfillInput.$inferInput): Record<string, unknown> {
  const { evaluatorId, filter, ...rest } = input;
  const out: Record<string, unknown> = { evaluatorId: evaluatorId.id };
  for (const [k, v] of Object.entries(rest)) if (v !== null && v !== undefined) out[k] = v;
  if (filter) {
    const { scoreEvaluatorId, ...parts } = filter;
    out.filter = Object.fromEntries(Object.entries({ ...parts, scoreEvaluatorId: scoreEvaluatorId?.id }).filter(([, v]) => v !== null && v !== undefined));
  }
  return out;
}

builder.queryFields((t) => ({
  backfills: t.prismaConnection({
    type: "Backfill",
    cursor: "id",
    description: "The workspace's backfills, newest first.",
    args: { status: t.arg({ type: StatusRef }), evaluatorId: t.arg.globalID({ for: EvaluatorRef, ...describedBy(listBackfillsInputSchema)("evaluatorId") }) },
    resolve: (query, _root, args, ctx) =>
      ctx.services.backfills.listBackfills(ctx.principal, { ...(args.status ? { status: args.status } : {}), ...(args.evaluatorId ? { evaluatorId: args.evaluatorId.id } : {}) }, query),
  }),
  backfill: t.prismaField({
    type: "Backfill",
    args: { id: t.arg.globalID({ for: BackfillRef, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.services.backfills.getBackfill(ctx.principal, { id: args.id.id });
      return ctx.prisma.backfill.findUniqueOrThrow({ ...query, where: { id: found.id } });
    },
  }),
  backfillLimits: t.field({ type: ActiveRef, description: "Queued or running backfills of the workspace and the limit.", resolve: (_root, _a, ctx) => ctx.services.backfills.activeBackfills(ctx.principal) }),
  estimateBackfill: t.field({
    type: EstimateRef,
    description: "What createBackfill with this input would read and record now, without creating anything.",
    args: { input: t.arg({ type: BackfillInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.backfills.estimateBackfill(ctx.principal, serviceInput(args.input)),
  }),
}));

/** The payload of the backfill mutations: the backfill row. */
const backfillPayload = {
  outputFields: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, { backfill: Backfill; estimate?: BackfillEstimate }>) => ({
    backfill: t.prismaField({ type: "Backfill", resolve: (query, p, _a, ctx) => ctx.prisma.backfill.findUniqueOrThrow({ ...query, where: { id: p.backfill.id } }) }),
    estimate: t.field({ type: EstimateRef, nullable: true, description: "createBackfill: what it was estimated to do at creation (the dependencies it added are its evaluators with source dependency).", resolve: (p) => p.estimate ?? null }),
  }),
};

builder.relayMutationField(
  "createBackfill",
  { description: "Queues a backfill: its spans (or traces, sessions for a trace or session evaluator) are chosen now (see estimateBackfill), then run in batches.", inputFields: backfillFields },
  { resolve: (_root, { input }, ctx) => ctx.services.backfills.createBackfill(ctx.principal, serviceInput(input as typeof BackfillInput.$inferInput)) },
  backfillPayload,
);

builder.relayMutationField(
  "cancelBackfill",
  { description: "Cancels a queued or running backfill; runs recorded stay, none is added once it returns.", inputFields: (t) => ({ id: t.globalID({ for: BackfillRef, required: true }) }) },
  { resolve: async (_root, { input }, ctx) => ({ backfill: await ctx.services.backfills.cancelBackfill(ctx.principal, { id: input.id.id }) }) },
  backfillPayload,
);

const ProgressEventRef = builder.objectRef<BackfillSnapshot>("BackfillProgressEvent").implement({
  description: "The status and progress of a backfill, sent when they change.",
  fields: (t) => ({
    backfill: t.prismaField({ type: "Backfill", resolve: (query, e, _a, ctx) => ctx.prisma.backfill.findUniqueOrThrow({ ...query, where: { id: e.backfillId } }) }),
    status: t.field({ type: StatusRef, resolve: (e) => e.status as BackfillStatus }),
    progress: t.field({ type: ProgressRef, resolve: (e) => e.progress }),
  }),
});

builder.subscriptionField("backfillProgress", (t) =>
  t.field({
    type: ProgressEventRef,
    description: "The backfill's status and progress whenever they change (over SSE: Accept: text/event-stream); ends when it completes, is cancelled or fails.",
    args: { id: t.arg.globalID({ for: BackfillRef, required: true }) },
    subscribe: (_root, args, ctx) => ctx.services.backfills.watchBackfill(ctx.principal, { id: args.id.id }),
    resolve: (event) => event as BackfillSnapshot,
  }),
);
