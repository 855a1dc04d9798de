import { encodeGlobalID, resolveCursorConnection } from "@pothos/plugin-relay";
import type { Span } from "../../generated/prisma/client.js";
import { builder } from "../../graphql/builder.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import type { SpanKind, SpanStatus } from "../../lib/closed-lists.js";
import { RunOutcomeEnum, SpanKindEnum, SpanStatusEnum } from "../../graphql/enums.js";
import { NotFoundError } from "../../lib/errors.js";
import { DependencyWaitRef } from "./waiting-graphql.js";
import { EvaluatorRef } from "../evaluators/graphql.js";
import { uuidOrNil } from "../../lib/uuid.js";
import { requireLookupName } from "../../lib/id-or-name.js";
import { MAX_BATCH_BYTES, MAX_SPANS_PER_BATCH, spanFilterFieldsSchema } from "./schemas.js";
import { spanCursor, type ConditionResult, type DroppedCounts, type EvaluationBacklog, type IngestResult, type MatchExplanation } from "./service.js";

const DroppedCountsRef = builder.objectRef<DroppedCounts>("SpanDroppedCounts").implement({
  description: "Counts of what a span's sender dropped before export (the OTLP dropped_*_count fields).",
  fields: (t) => ({
    attributes: t.exposeInt("attributes", { description: "Span attributes." }),
    events: t.exposeInt("events", { description: "Events." }),
    links: t.exposeInt("links", { description: "Links." }),
    eventAttributes: t.exposeInt("eventAttributes", { description: "Attributes of the kept events, summed." }),
    linkAttributes: t.exposeInt("linkAttributes", { description: "Attributes of the kept links, summed." }),
  }),
});

/** A span of the caller's workspace. */
export const SpanRef = builder.prismaNode("Span", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "A span of a trace, as ingested (OpenTelemetry naming), with the runs and scores of the evaluators that matched it.",
  fields: (t) => ({
    traceId: t.exposeString("traceId"),
    spanId: t.exposeString("spanId"),
    parentSpanId: t.exposeString("parentSpanId", { nullable: true }),
    name: t.exposeString("name"),
    kind: t.field({ type: SpanKindEnum, resolve: (parent) => parent.kind as SpanKind }),
    status: t.field({ type: SpanStatusEnum, resolve: (parent) => parent.status as SpanStatus }),
    startTime: t.expose("startTime", { type: "DateTime" }),
    endTime: t.expose("endTime", { type: "DateTime", nullable: true }),
    input: t.field({ type: "JSON", nullable: true, description: "The input as sent.", resolve: (s) => s.input ?? null }),
    output: t.field({ type: "JSON", nullable: true, description: "The output as sent.", resolve: (s) => s.output ?? null }),
    attributes: t.expose("attributes", { type: "JSON", description: "Flat attribute keys, as OpenTelemetry sends them." }),
    metadata: t.expose("metadata", { type: "JSON" }),
    resourceAttributes: t.field({
      type: "JSON",
      description: "The attributes of the span's resource (service.name, deployment.environment, …): the OTLP resource, or resourceAttributes given to ingestSpans; {} when none.",
      resolve: (s, _args, ctx) => ctx.services.spans.resourceAttributesOf(s),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was ingested." }),
    dropped: t.field({
      type: DroppedCountsRef,
      description: "What its sender dropped before export (OTLP dropped_*_count: an OpenTelemetry SDK limit, 128 attributes per span by default); zeros when nothing.",
      resolve: (s, _args, ctx) => ctx.services.spans.droppedCountsOf(s),
    }),
    incomplete: t.string({
      nullable: true,
      description: "Set when its sender dropped attributes, events or links: the sentence says what and how to keep the conversation whole; null when complete.",
      resolve: (s, _args, ctx) => ctx.services.spans.incompleteOf(s),
    }),
    conversation: t.field({
      type: "JSON",
      description: 'The turns as [{role, content}], oldest first: input messages then output (OpenAI shape, else gen_ai.input/output.messages).',
      resolve: (s, _args, ctx) => ctx.services.spans.conversationOf(s),
    }),
    toolCalls: t.field({
      type: "JSON",
      description: "The tool calls in the output as [{name, arguments}].",
      resolve: (s, _args, ctx) => ctx.services.spans.toolCallsOf(s),
    }),
    document: t.field({
      type: "JSON",
      description: "The sample document an evaluator sees for this span (save it to replay with `python -m oodle_eval run --span FILE`).",
      resolve: (s, _args, ctx) => ctx.services.spans.documentOfSpan(s),
    }),
    runs: t.relation("runs", {
      description: "The runs of the evaluators that matched it.",
      args: { evaluatorId: t.arg.globalID({ for: EvaluatorRef }), outcome: t.arg({ type: RunOutcomeEnum }) },
      query: (args) => {
        return {
          where: { ...(args.evaluatorId ? { evaluatorId: uuidOrNil(args.evaluatorId.id) } : {}), ...(args.outcome ? { outcome: args.outcome } : {}) },
          orderBy: { createdAt: "asc" },
        };
      },
    }),
    scores: t.prismaField({
      type: ["Score"],
      description: "Every score on it, by run then position.",
      args: { evaluatorId: t.arg.globalID({ for: EvaluatorRef }), name: t.arg.string() },
      resolve: (query, span, args, ctx) =>
        ctx.prisma.score.findMany({
          ...query,
          where: { spanId: span.id, ...(args.evaluatorId ? { evaluatorId: uuidOrNil(args.evaluatorId.id) } : {}), ...(args.name ? { name: args.name } : {}) },
          orderBy: [{ createdAt: "asc" }, { runId: "asc" }, { position: "asc" }],
        }),
    }),
  }),
});

const spanFilter = describedBy(spanFilterFieldsSchema);
const SpanFilterRef = builder.inputType("SpanFilter", {
  description: "Filters of the spans query; every given one must hold. Score filters apply to one score of one run.",
  fields: (t) => ({
    traceId: t.string(spanFilter("traceId")),
    kind: t.field({ type: SpanKindEnum, ...spanFilter("kind") }),
    name: t.string(spanFilter("name")),
    from: t.field({ type: "DateTime", ...spanFilter("from") }),
    to: t.field({ type: "DateTime", ...spanFilter("to") }),
    evaluatorId: t.globalID(spanFilter("evaluatorId")),
    outcome: t.field({ type: RunOutcomeEnum, ...spanFilter("outcome") }),
    scoreName: t.string(spanFilter("scoreName")),
    scoreValue: t.field({ type: "JSON", ...spanFilter("scoreValue") }),
    scoreMin: t.float(spanFilter("scoreMin")),
    scoreMax: t.float(spanFilter("scoreMax")),
  }),
});

const TraceRef = builder.objectRef<{ traceId: string; spans: Span[] }>("Trace").implement({
  description: "The spans of one trace, ordered by start time.",
  fields: (t) => ({
    traceId: t.exposeString("traceId"),
    spans: t.field({ type: [SpanRef], resolve: (trace) => trace.spans }),
  }),
});

const MatchConditionRef = builder.objectRef<ConditionResult>("MatchCondition").implement({
  description: "One part of an evaluator's rule applied to a span: whether the span met it, with the values compared.",
  fields: (t) => ({
    condition: t.exposeString("condition", { description: "enabled, kind, root, name, attributes, resource or sampling (the order they are applied in)." }),
    key: t.exposeString("key", { nullable: true, description: "The attribute key of an attributes or resource condition (one per key); null for the others." }),
    passed: t.exposeBoolean("passed"),
    detail: t.exposeString("detail", { description: "What was compared, in a sentence." }),
  }),
});

/** Why an evaluator did or did not run on a span (runs/graphql.ts adds its `run`). */
export const MatchExplanationRef = builder.objectRef<MatchExplanation>("MatchExplanation").implement({
  description: "Why an evaluator did or did not run on a span: its rule applied to the span, condition by condition.",
  fields: (t) => ({
    matched: t.boolean({ resolve: (e) => e.decision.matched }),
    reason: t.string({
      nullable: true,
      description: "The first condition that failed: disabled, kind, root, name, attributes, resource or sampling (null when matched).",
      resolve: (e) => e.decision.reason ?? null,
    }),
    detail: t.string({ description: "What failed, with the values compared.", resolve: (e) => e.decision.detail }),
    conditions: t.field({
      type: [MatchConditionRef],
      description: "Every part of the rule, in order, each saying whether the span met it: which part matched and which did not (one per attribute key).",
      resolve: (e) => e.decision.conditions ?? [],
    }),
    samplingDraw: t.float({ description: "The span's deterministic draw in [0, 1); sampled when below the rate.", resolve: (e) => e.decision.draw }),
    incomplete: t.exposeString("incomplete", {
      nullable: true,
      description: "Set when the span's sender dropped attributes, events or links (Span.incomplete): the document the evaluator sees there is incomplete.",
    }),
    blockedReason: t.exposeString("blocked", {
      nullable: true,
      description: "Set when the evaluator is blocked (Evaluator.blockedAt): since when and why, as the skip reason its runs get meanwhile (a matched span's run is skipped; detail says so too). Null: not blocked.",
    }),
    ruleChangedSinceIngest: t.exposeBoolean("ruleChangedSinceIngest", { description: "The rule changed after the span arrived: the decision at ingest may have differed." }),
    archived: t.exposeBoolean("archived"),
    waiting: t.field({ type: DependencyWaitRef, nullable: true, description: "Set when it is queued on the span and waits for dependencies (detail then says for what, since when, until when).", resolve: (e) => e.waiting }),
    // run: added by runs/graphql.ts (RunRef stands above spans/).
  }),
});

const IngestedSpanRef = builder.objectRef<IngestResult["spans"][number]>("IngestedSpan").implement({
  fields: (t) => ({
    index: t.exposeInt("index", { description: "Its index in the batch." }),
    id: t.id({ description: "The stored span's global id.", resolve: (s) => encodeGlobalID("Span", s.id) }),
    traceId: t.exposeString("traceId"),
    spanId: t.exposeString("spanId"),
    created: t.exposeBoolean("created", { description: "False when it was already stored (kept as it was)." }),
  }),
});

const InputIssueRef = builder.objectRef<{ path: string; message: string }>("SpanIssue").implement({
  fields: (t) => ({ path: t.exposeString("path"), message: t.exposeString("message") }),
});

const EvaluationBacklogRef = builder.objectRef<EvaluationBacklog>("EvaluationBacklog").implement({
  description: "Live evaluations of the workspace owed and not yet run: how far scoring lags behind ingest.",
  fields: (t) => ({
    queued: t.exposeInt("queued", { description: "Evaluations queued or running." }),
    oldestAgeSeconds: t.exposeFloat("oldestAgeSeconds", { description: "Seconds since the oldest of them was queued; 0 when none is." }),
    limit: t.exposeInt("limit", { nullable: true, description: "The bound at which ingest refuses a batch (LIMIT_EXCEEDED with a retry-after); null: none." }),
  }),
});

const RejectedSpanRef = builder.objectRef<IngestResult["rejected"][number]>("RejectedSpan").implement({
  fields: (t) => ({
    index: t.exposeInt("index", { description: "Its index in the batch." }),
    issues: t.field({ type: [InputIssueRef], resolve: (r) => r.issues }),
  }),
});

builder.queryFields((t) => ({
  spans: t.connection({
    type: SpanRef,
    description: "The workspace's spans, newest start first.",
    args: { filter: t.arg({ type: SpanFilterRef }) },
    resolve: (_root, args, ctx) => {
      const filter = args.filter ? { ...args.filter, evaluatorId: args.filter.evaluatorId?.id } : args.filter;
      return resolveCursorConnection<Promise<Span[]>>({ args, toCursor: (span: Span) => spanCursor(span) }, (page) => ctx.services.spans.listSpans(ctx.principal, filter, page));
    },
  }),
  span: t.prismaField({
    type: "Span",
    description: "A span by its global id.",
    args: { id: t.arg.globalID({ for: SpanRef, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const span = await ctx.prisma.span.findFirst({ ...query, where: { id: uuidOrNil(args.id.id), workspaceId: ctx.principal.workspaceId } });
      if (!span) throw new NotFoundError("span", args.id.id);
      return span;
    },
  }),
  trace: t.field({
    type: TraceRef,
    description: "The spans of a trace (by its trace id), ordered by start time.",
    args: { traceId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const spans = await ctx.services.spans.traceSpans(ctx.principal.workspaceId, requireLookupName(args.traceId, "traceId"));
      if (spans.length === 0) throw new NotFoundError("trace", args.traceId);
      return { traceId: args.traceId, spans };
    },
  }),
  explainMatch: t.field({
    type: MatchExplanationRef,
    description: "Why an evaluator did or did not run on a span (its current rule applied to the span).",
    args: { spanId: t.arg.globalID({ for: SpanRef, required: true }), evaluatorId: t.arg.globalID({ for: EvaluatorRef, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.spans.explainMatch(ctx.principal.workspaceId, args.spanId.id, args.evaluatorId.id),
  }),
}));

builder.relayMutationField(
  "ingestSpans",
  {
    inputFields: (t) => ({
      spans: t.field({
        type: ["JSON"],
        required: true,
        description:
          `Up to ${MAX_SPANS_PER_BATCH} spans (${MAX_BATCH_BYTES / 1024 / 1024} MiB of JSON), each ` +
          "{traceId, spanId, parentSpanId?, name, kind? (chat|tool|agent|retrieval|other), startTime? (ISO 8601, or epoch s/ms/µs/ns told apart by size: below 1e11 s, below 1e14 ms, below 1e17 µs, else ns), endTime?, " +
          "input?, output?, attributes? (flat keys), resourceAttributes? (service.name, deployment.environment, …), metadata?, status? (unset|ok|error)}. The conversation is input + output in the " +
          "OpenAI message shape, or the attributes gen_ai.input.messages / gen_ai.output.messages.",
      }),
    }),
  },
  { resolve: (_root, { input }, ctx) => ctx.services.spans.ingestSpans(ctx.principal, input.spans) },
  {
    description:
      "Stores a batch of spans and queues the evaluations of the evaluators they match; returns at once. While the workspace's " +
      "queued evaluations are at their bound, the whole batch is refused before anything is stored: LIMIT_EXCEEDED (HTTP 429) " +
      "with extensions.retryAfterSeconds; send it again then.",
    outputFields: (t) => ({
      spans: t.field({ type: [IngestedSpanRef], description: "The stored spans, by index.", resolve: (r) => r.spans }),
      rejected: t.field({ type: [RejectedSpanRef], description: "The refused spans, by index with every problem; the others were stored.", resolve: (r) => r.rejected }),
      evaluationsQueued: t.exposeInt("evaluationsQueued", {
        description: "Evaluations this call queued: (span, code evaluator) pairs newly owed. A re-sent span counts only for evaluators with no run and nothing queued on it; external evaluators queue nothing (their scores are posted).",
      }),
      backlog: t.field({ type: EvaluationBacklogRef, description: "The workspace's live evaluations still queued after this batch (the scoring lag).", resolve: (r) => r.backlog }),
    }),
  },
);

builder.prismaObjectFields("Run", (t) => ({
  inputIncomplete: t.string({
    nullable: true,
    select: { span: { select: { metadata: true } } },
    description: "Set when the run's span was incomplete (its sender dropped attributes, events or links): the document it scored missed them (see Span.incomplete). Null when complete, and for experiment runs.",
    resolve: (run, _args, ctx) => (run.span ? ctx.services.spans.incompleteOf(run.span) : null),
  }),
}));

builder.prismaObjectFields("Span", (t) => ({
  waiting: t.field({
    type: [DependencyWaitRef],
    description: "The evaluators queued on this span that wait for dependencies (e.g. an LLM judge that has not posted): for what, since when, until when.",
    resolve: (s, _a, ctx) => ctx.services.spans.waiting(ctx.principal.workspaceId, s.id),
  }),
}));
