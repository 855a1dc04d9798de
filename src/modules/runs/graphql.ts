import type { Prisma, Run } from "../../generated/prisma/client.js";
import { builder } from "../../graphql/builder.js";
import type { GroupCompletion, RunOutcome, ScoreDataType, TargetType } from "../../lib/closed-lists.js";
import { EvaluationTargetEnum, GroupCompletionEnum, RunOutcomeEnum, ScoreDataTypeEnum } from "../../graphql/enums.js";
import { EvaluatorRef } from "../evaluators/graphql.js";
import { MatchExplanationRef } from "../spans/graphql.js";
import { GroupStateCountsRef } from "../groups/graphql.js";
import { uuidOrNil } from "../../lib/uuid.js";
import type { EvaluatorStats, JudgeStats, RunUsage } from "./service.js";

/** One score written by a run. */
export const ScoreRef = builder.prismaObject("Score", {
  description: "One score written by a run: a name, a value (boolean, number, category or none) and how to read it.",
  fields: (t) => ({
    name: t.exposeString("name"),
    dataType: t.field({ type: ScoreDataTypeEnum, resolve: (parent) => parent.dataType as ScoreDataType }),
    value: t.field({ type: "JSON", nullable: true, description: "The value as written: true/false, a number, a string, or null (no value).", resolve: (s) => s.value ?? null }),
    numericValue: t.exposeFloat("numericValue", { nullable: true, description: "The value as a number for filters: the number, or 1/0 for a boolean." }),
    higherIsBetter: t.exposeBoolean("higherIsBetter"),
    comment: t.exposeString("comment", { nullable: true }),
    metadata: t.field({ type: "JSON", nullable: true, resolve: (s) => s.metadata ?? null }),
    position: t.exposeInt("position", { description: "Order within the run (the primary score first)." }),
    run: t.relation("run"),
    evaluator: t.prismaField({
      type: "Evaluator",
      resolve: (query, score, _args, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: score.evaluatorId } }),
    }),
  }),
});

/** What went wrong in a run (also returned by tryCode). */
export const RunErrorRef = builder.objectRef<{ type: string; message: string; traceback: string | null }>("RunError").implement({
  description: "What went wrong in a run, in terms the evaluator's author can act on.",
  fields: (t) => ({
    type: t.exposeString("type", { description: 'The exception type ("ZeroDivisionError") or a sandbox reason ("ItemTimeout").' }),
    message: t.exposeString("message"),
    traceback: t.exposeString("traceback", { nullable: true, description: "The traceback limited to the evaluator's own lines." }),
  }),
});

/** The execution record of one evaluator on one span. */
export const RunRef = builder.prismaNode("Run", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "The execution record: one run of an evaluator on a span, a trace or a session (or an experiment's item), with its scores.",
  fields: (t) => ({
    evaluator: t.relation("evaluator"),
    span: t.relation("span", { nullable: true, description: "The span (null for a run of an experiment, or of a trace or session evaluator)." }),
    traceId: t.exposeString("traceId", { nullable: true, description: "A trace evaluator's run: the trace it ran on (OTLP trace id); null for every other run." }),
    sessionId: t.exposeString("sessionId", { nullable: true, description: "A session evaluator's run: the session key it ran on; null for every other run." }),
    completion: t.field({
      type: GroupCompletionEnum,
      nullable: true,
      description: "A trace or session run: why it ran when it did (end_marker, quiet_period, or max_wait: it ran on what had arrived); null for a span or item run, and for a backfill's run (backfill set).",
      resolve: (r) => r.completion as GroupCompletion | null,
    }),
    groupSpanCount: t.exposeInt("groupSpanCount", { nullable: true, description: "A trace or session run: the spans the group had when it ran (before the caps); null for a span or item run." }),
    usage: t.field({ type: RunUsageRef, nullable: true, description: "A judge run's model call (model, tokens, cost, cached); null for code runs.", resolve: (run) => (run.usage as RunUsage | null) ?? null }),
    documentCapped: t.exposeBoolean("documentCapped", { description: "The document was cut to the evaluator's caps (groupSettings maxSpans, maxTurns, maxDocumentBytes): the code saw ctx.trace.capped true. False for span and item runs." }),
    templateVersion: t.relation("templateVersion", { nullable: true, description: "The template version run (null when skipped)." }),
    outcome: t.field({ type: RunOutcomeEnum, resolve: (parent) => parent.outcome as RunOutcome }),
    skipReason: t.exposeString("skipReason", { nullable: true, description: "Why it did not run (outcome skipped)." }),
    outputTruncated: t.exposeBoolean("outputTruncated", {
      description: "The item printed more than the output cap (64 KiB by default): stdout/stderr end with a marker, the rest was dropped, the scores were kept.",
    }),
    missingDependencies: t.exposeStringList("missingDependencies", {
      description: "Dependencies it read that had no scores for its span or item (ctx.score returned its default): empty when every one had scores.",
    }),
    inputRunIds: t.expose("inputRunIds", {
      type: "JSON",
      description: "The runs of its dependencies it read on its span: dependency evaluator id → run id ({} without dependencies). A run whose map names a replaced run is stale and runs again. A trace or session run: dependency evaluator id → `sha256:` of the runs it read on the group's spans (docs/evaluation.md § Targets).",
    }),
    params: t.expose("params", { type: "JSON", description: "ctx.params as the run saw them (value → default → null)." }),
    libraryVersions: t.expose("libraryVersions", { type: "JSON", description: "Shared library name → version used." }),
    stdout: t.exposeString("stdout", { description: "What the evaluator printed (capped)." }),
    stderr: t.exposeString("stderr"),
    error: t.field({
      type: RunErrorRef,
      nullable: true,
      resolve: (r) => (r.errorType ? { type: r.errorType, message: r.errorMessage ?? "", traceback: r.errorTraceback } : null),
    }),
    durationMs: t.exposeFloat("durationMs", { nullable: true, description: "Time of the evaluation in the sandbox (ms)." }),
    attempts: t.exposeInt("attempts", { description: "Attempts made (a sandbox fault is retried; the user's own faults are not)." }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    scores: t.relation("scores", { query: { orderBy: { position: "asc" } } }),
  }),
});

const OutcomeCountRef = builder.objectRef<{ outcome: string; count: number }>("OutcomeCount").implement({
  fields: (t) => ({ outcome: t.field({ type: RunOutcomeEnum, resolve: (parent) => parent.outcome as RunOutcome }), count: t.exposeInt("count") }),
});

/** An evaluator's statistics with the evaluator they are of (`groups` reads its schedules by state). */
export type EvaluatorStatsView = EvaluatorStats & { evaluatorId: string; target: string };

/** A judge evaluator's calls and cost (EvaluatorStats.judge). */
const JudgeStatsRef = builder.objectRef<JudgeStats>("JudgeStats").implement({
  description: "A judge evaluator's model calls on live spans, traces and sessions (from Run.usage): calls, cache hits, tokens and cost.",
  fields: (t) => ({
    calls: t.exposeInt("calls", { description: "Runs that called the provider (cache misses that got an answer)." }),
    cacheHits: t.exposeInt("cacheHits", { description: "Runs served by the result cache: no call, cost 0." }),
    cacheHitRate: t.exposeFloat("cacheHitRate", { description: "cacheHits / (calls + cacheHits); 0 when neither." }),
    inputTokens: t.exposeFloat("inputTokens"),
    outputTokens: t.exposeFloat("outputTokens"),
    costUsd: t.exposeFloat("costUsd", { description: "US dollars of the priced calls (the price table with the workspace's overrides)." }),
    unpricedCalls: t.exposeInt("unpricedCalls", { description: "Calls whose model has no price: their cost is null, not counted in costUsd." }),
    costLastHourUsd: t.exposeFloat("costLastHourUsd", { description: "US dollars spent in the last rolling hour (what maxCostPerHourUsd is checked against)." }),
    skippedSpendCap: t.exposeInt("skippedSpendCap", { description: "Runs recorded as skipped because maxCostPerHourUsd was reached." }),
  }),
});

/** A judge run's model call (Run.usage). */
export const RunUsageRef = builder.objectRef<RunUsage>("RunUsage").implement({
  description: "What a judge run's model call cost: the model, tokens, cost and whether the answer came from the cache.",
  fields: (t) => ({
    model: t.exposeString("model", { description: "The model that answered (for a cache hit: the one that answered then)." }),
    inputTokens: t.exposeInt("inputTokens"),
    outputTokens: t.exposeInt("outputTokens"),
    costUsd: t.exposeFloat("costUsd", { nullable: true, description: "US dollars from the price table; null when the model has no price (never guessed); 0 for a cache hit." }),
    priceSource: t.exposeString("priceSource", { nullable: true, description: "workspace (an override), builtin, or null (no price)." }),
    cached: t.exposeBoolean("cached", { description: "Served by the result cache: no call was made." }),
    providerMs: t.exposeFloat("providerMs", { description: "The provider's time for the call, ms (0 for a cache hit)." }),
  }),
});

/** Evaluator.stats. */
const EvaluatorStatsRef = builder.objectRef<EvaluatorStatsView>("EvaluatorStats").implement({
  description:
    "How spans met an evaluator's rule and what its runs ended with. Each span is counted once, when it first arrives, " +
    "under the first condition it failed: disabled, kind, root, name, attributes, resource, then sampling. A span sent again that is queued " +
    "for the evaluator because it has no run on it (an evaluator created since, say) is counted as matched then.",
  fields: (t) => ({
    spansMatched: t.exposeInt("spansMatched", { description: "Spans that met the rule and were sampled: one evaluation queued each (first sent, or re-sent with no run of it yet)." }),
    skippedDisabled: t.exposeInt("skippedDisabled", { description: "Spans that arrived while it was disabled." }),
    skippedKind: t.exposeInt("skippedKind", { description: "Spans of another kind than its spanKind." }),
    skippedName: t.exposeInt("skippedName", { description: "Spans whose name did not match spanNamePattern." }),
    skippedRoot: t.exposeInt("skippedRoot", { description: "Spans with a parent while rootSpansOnly is set." }),
    skippedAttributes: t.exposeInt("skippedAttributes", { description: "Spans without the attribute values of attributeEquals, or whose list attribute of attributeContains lacks the value." }),
    skippedResource: t.exposeInt("skippedResource", { description: "Spans whose resource attributes differ from resourceAttributeEquals." }),
    skippedSampling: t.exposeInt("skippedSampling", { description: "Spans that met the rule but were left out by samplingRate." }),
    skippedInvocationCap: t.exposeInt("skippedInvocationCap", { description: "Runs recorded as skipped because maxInvocationsPerHour was reached." }),
    judge: t.field({
      type: JudgeStatsRef,
      nullable: true,
      description: "A judge evaluator's calls, cache hits, tokens and cost; null for other kinds.",
      resolve: (s, _a, ctx) => ctx.services.runs.judgeStats(s.evaluatorId),
    }),
    runs: t.exposeInt("runs", { description: "Runs on live spans." }),
    runsByOutcome: t.field({ type: [OutcomeCountRef], resolve: (s) => s.runsByOutcome }),
    pending: t.exposeInt("pending", { description: "Matched spans without a run yet (queued or running)." }),
    queued: t.exposeInt("queued", { description: "Evaluations owed to it and not yet run: its live backlog (settled by each run)." }),
    oldestQueuedSeconds: t.exposeFloat("oldestQueuedSeconds", { description: "Seconds since its oldest queued evaluation was queued (the lag); 0 when none is." }),
    waiting: t.exposeInt("waiting", { description: "Of the pending spans, those where it waits for a dependency (an external evaluator's scores not posted, or a dependency still queued); Span.waiting says for what." }),
    waitingSince: t.expose("waitingSince", { type: "DateTime", nullable: true, description: "When the oldest wait began." }),
    nextWaitExpiresAt: t.expose("nextWaitExpiresAt", { type: "DateTime", nullable: true, description: "When the first wait's safety net expires: it then runs with what there is." }),
    lastMatchedAt: t.expose("lastMatchedAt", { type: "DateTime", nullable: true }),
    lastSeenAt: t.expose("lastSeenAt", { type: "DateTime", nullable: true, description: "When a span last arrived in its workspace while it was live." }),
    lastRunAt: t.expose("lastRunAt", { type: "DateTime", nullable: true }),
    groups: t.field({
      type: GroupStateCountsRef,
      nullable: true,
      description: "A trace or session evaluator: its traces or sessions by state (traceEvaluations / sessionEvaluations say each one's in words); null for a span evaluator.",
      resolve: (s, _a, ctx) => (s.target === "span" ? null : ctx.services.groupEvaluations.stateCounts(ctx.principal.workspaceId, s.evaluatorId)),
    }),
  }),
});

builder.objectField(EvaluatorRef, "stats", (t) =>
  t.field({
    type: EvaluatorStatsRef,
    description: 'Live statistics: spans matched and skipped (by reason), runs by outcome, last run — "why did nothing run".',
    resolve: async (evaluator, _args, ctx) => ({ ...(await ctx.services.runs.evaluatorStats(ctx.principal.workspaceId, evaluator.id))!, evaluatorId: evaluator.id, target: evaluator.target }),
  }),
);

/** The live runs of one target type (a span, trace or session run has that column set), or of all three. */
function liveTargetWhere(target: TargetType | null): Prisma.RunWhereInput {
  if (target === "span") return { spanId: { not: null } };
  if (target === "trace") return { traceId: { not: null } };
  if (target === "session") return { sessionId: { not: null } };
  return { OR: [{ spanId: { not: null } }, { traceId: { not: null } }, { sessionId: { not: null } }] };
}

builder.queryFields((t) => ({
  runs: t.prismaConnection({
    type: "Run",
    cursor: "id",
    description: "Live runs (on spans, traces and sessions; not experiment items), newest first; filter by outcome to find a failing evaluator, by target for one kind of run.",
    args: {
      outcome: t.arg({ type: RunOutcomeEnum }),
      target: t.arg({ type: EvaluationTargetEnum, description: "Only runs on this kind of target: span, trace or session (omitted: all three)." }),
      evaluatorId: t.arg.globalID({ for: EvaluatorRef }),
      from: t.arg({ type: "DateTime", description: "Runs created at or after." }),
      to: t.arg({ type: "DateTime", description: "Runs created before." }),
    },
    resolve: (query, _root, args, ctx) => {
      return ctx.prisma.run.findMany({
        ...query,
        where: {
          workspaceId: ctx.principal.workspaceId,
          ...liveTargetWhere(args.target ?? null),
          ...(args.outcome ? { outcome: args.outcome } : {}),
          ...(args.evaluatorId ? { evaluatorId: uuidOrNil(args.evaluatorId.id) } : {}),
          ...(args.from || args.to ? { createdAt: { ...(args.from ? { gte: args.from } : {}), ...(args.to ? { lt: args.to } : {}) } } : {}),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
    },
  }),
}));

builder.objectField(MatchExplanationRef, "run", (t) =>
  t.field({
    type: RunRef,
    nullable: true,
    description: "Its current run on the span, if any: a span that matched can still have been skipped (outcome skipped, skipReason: a gate, the invocation cap, the evaluator disabled after matching).",
    resolve: (e) => e.run,
  }),
);

// A span's runs in dependency order (dependencies/reading.ts), here because each holds a Run.
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
}));
