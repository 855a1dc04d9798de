import { builder } from "../../graphql/builder.js";
import { EvaluationTargetEnum } from "../../graphql/enums.js";
import { BadUserInputError } from "../../lib/errors.js";
import { GROUP_EVALUATION_STATES, type GroupEvaluation, type GroupStateCounts } from "./service.js";

/** The states of a trace's or session's evaluation. */
const GroupEvaluationStateEnum = builder.enumType("GroupEvaluationState", {
  description:
    "Where a trace's or session's evaluation by one evaluator stands: waiting (spans pending, not due yet), queued (due: its run is queued; or a round is queued and spans arrived since, which run after it), ran (its current run covers every span that arrived), stale (it ran, spans arrived since: it runs again).",
  values: GROUP_EVALUATION_STATES,
});

/** One evaluator's evaluation of one trace or session. */
const GroupEvaluationRef = builder.objectRef<GroupEvaluation>("GroupEvaluation").implement({
  description: "One trace or session evaluator's evaluation of one trace or session: its schedule (when it runs), its state in words, its current run and the runs it replaced.",
  fields: (t) => ({
    evaluator: t.prismaField({ type: "Evaluator", resolve: (query, g, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: g.evaluator.id } }) }),
    targetType: t.field({ type: EvaluationTargetEnum, description: "trace or session.", resolve: (g) => g.targetType }),
    groupKey: t.exposeString("groupKey", { description: "The trace id, or the session key." }),
    state: t.field({ type: GroupEvaluationStateEnum, resolve: (g) => g.state }),
    detail: t.exposeString("detail", {
      description: 'The state in words: "waiting: quiet until T (30 s after the latest span)", "queued at T", "ran at T1 (quiet period, 7 spans)", "ran at T1, stale since T2, runs again at T3 (…)", "ran at the maximum wait with N spans, at T".',
    }),
    spanCount: t.int({ description: "Spans that arrived for the group, in all.", resolve: (g) => g.schedule.spanCount }),
    traceIds: t.stringList({ description: "The traces of the group (a trace: itself; a session: every trace seen with its key).", resolve: (g) => g.schedule.traceIds }),
    firstSpanAt: t.field({ type: "DateTime", description: "Arrival of the first span of the pending (or last) round.", resolve: (g) => g.schedule.firstSpanAt }),
    lastSpanAt: t.field({ type: "DateTime", description: "Arrival of the latest span.", resolve: (g) => g.schedule.lastSpanAt }),
    markerAt: t.field({ type: "DateTime", nullable: true, description: "Arrival of an end marker in the pending round (it runs at once).", resolve: (g) => g.schedule.markerAt }),
    dueAt: t.field({ type: "DateTime", nullable: true, description: "When the pending round runs: the end marker, else the end of the quiet period or the maximum wait, whichever comes first; null when nothing is pending.", resolve: (g) => g.schedule.dueAt }),
    queuedAt: t.field({ type: "DateTime", nullable: true, description: "When the latest round was queued.", resolve: (g) => g.schedule.queuedAt }),
    ranAt: t.field({ type: "DateTime", nullable: true, description: "When its current run was written.", resolve: (g) => g.schedule.ranAt }),
    staleSince: t.field({ type: "DateTime", nullable: true, description: "Its current run is stale since this span's arrival (it runs again); null when it is not.", resolve: (g) => g.schedule.staleSince }),
    run: t.prismaField({
      type: "Run",
      nullable: true,
      description: "Its current run on the group (exactly one per trace or session and evaluator); null until it first ran.",
      resolve: (query, g, _a, ctx) =>
        g.targetType === "trace"
          ? ctx.prisma.run.findUnique({ ...query, where: { evaluatorId_traceId: { evaluatorId: g.evaluator.id, traceId: g.groupKey } } })
          : ctx.prisma.run.findUnique({ ...query, where: { evaluatorId_sessionId: { evaluatorId: g.evaluator.id, sessionId: g.groupKey } } }),
    }),
    history: t.prismaField({
      type: ["RunHistory"],
      description: "The runs its current run replaced (reason group_changed: spans arrived after it ran), newest first.",
      resolve: (query, g, _a, ctx) =>
        ctx.prisma.runHistory.findMany({
          ...query,
          where: { workspaceId: g.evaluator.workspaceId, evaluatorId: g.evaluator.id, ...(g.targetType === "trace" ? { traceId: g.groupKey } : { sessionId: g.groupKey }) },
          orderBy: [{ supersededAt: "desc" }, { id: "desc" }],
        }),
    }),
  }),
});

/** A group key argument: not empty. @throws BadUserInputError naming the argument. */
function groupKeyOf(value: string, argument: string): string {
  if (!value.trim()) throw new BadUserInputError([{ path: argument, message: "must not be empty" }]);
  return value;
}

builder.queryFields((t) => ({
  traceEvaluations: t.field({
    type: [GroupEvaluationRef],
    description: "How the workspace's trace evaluators stand on one trace: one entry per evaluator with a schedule for it (waiting, queued, ran or stale, in words), with its current run and history.",
    args: { traceId: t.arg.string({ required: true, description: "The trace id (OTLP, hex)." }) },
    resolve: (_root, args, ctx) => ctx.services.groupEvaluations.groupEvaluations(ctx.principal, "trace", groupKeyOf(args.traceId, "traceId")),
  }),
  sessionEvaluations: t.field({
    type: [GroupEvaluationRef],
    description: "How the workspace's session evaluators stand on one session (the traces sharing a session key): one entry per evaluator with a schedule for it, with its current run and history.",
    args: { sessionId: t.arg.string({ required: true, description: "The session key (session.id or gen_ai.conversation.id, or the attribute the evaluator names)." }) },
    resolve: (_root, args, ctx) => ctx.services.groupEvaluations.groupEvaluations(ctx.principal, "session", groupKeyOf(args.sessionId, "sessionId")),
  }),
}));

/** A group evaluator's schedules by state (Evaluator.stats.groups: runs/graphql.ts, above this module). */
export const GroupStateCountsRef = builder.objectRef<GroupStateCounts>("GroupStateCounts").implement({
  description: "A trace or session evaluator's groups (traces or sessions with a schedule) by state.",
  fields: (t) => ({
    waiting: t.exposeInt("waiting", { description: "Spans pending, not due yet (quiet period or maximum wait running)." }),
    queued: t.exposeInt("queued", { description: "Due: their run is queued (or a round is queued and later spans wait behind it)." }),
    ran: t.exposeInt("ran", { description: "Their current run covers every span that arrived." }),
    stale: t.exposeInt("stale", { description: "They ran, and spans arrived since: they run again." }),
  }),
});
