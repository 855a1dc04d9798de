// Trace and session evaluators over GraphQL (docs/evaluation.md § Targets): target and group
// settings on create, update and read (the values that apply shown), each refusal naming its
// field, and traceEvaluations / sessionEvaluations / Evaluator.stats.groups over GroupSchedule and
// Run rows written here directly (the writers are the ingest side and the group processor).
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { graphqlClient } from "../helpers.js";
import { issuesOf, templatesHarness } from "../templates/helpers.js";

const h = templatesHarness();
/**
 * The same service with its clock at 2099-12-03T15:05:00Z (the reads' `now`). The rows below are
 * dated 2099 so that no group poller (its tests share the database) finds one due or to requeue.
 */
const atFive = createApp(loadConfig({ ...process.env }), { clock: { now: () => new Date("2099-12-03T15:05:00.000Z") } });
const clientAtFive = graphqlClient(atFive);
afterAll(async () => {
  await h.app.close();
  await atFive.close();
});

const FIELDS = `id name kind target askedGroupSettings
  groupSettings { quietPeriodMs maxWaitMs endMarkerAttribute endOnRootSpan sessionKeyAttributes maxSpans maxTurns maxDocumentBytes }`;
const CREATE = `mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { ${FIELDS} } } }`;
const UPDATE = `mutation($input: UpdateEvaluatorInput!) { updateEvaluator(input: $input) { evaluator { ${FIELDS} } } }`;

type Ws = Awaited<ReturnType<typeof h.workspace>>;

async function create(ws: Ws, input: Record<string, unknown>) {
  const res = await ws.gql(CREATE, { input });
  return { evaluator: res.data?.createEvaluator?.evaluator, error: res.errors?.[0] };
}
async function update(ws: Ws, input: Record<string, unknown>) {
  const res = await ws.gql(UPDATE, { input });
  return { evaluator: res.data?.updateEvaluator?.evaluator, error: res.errors?.[0] };
}

describe("trace and session evaluators: create, update, read", () => {
  it("shows the settings that apply (asked, else the defaults), null for a span evaluator", async () => {
    const ws = await h.workspace("group-create");
    await ws.keywordTemplate();
    const trace = await create(ws, { name: "Agent trace", templateName: "Keyword check", target: "trace", spanKind: "agent", groupSettings: { quietPeriodMs: 60_000, endOnRootSpan: true } });
    expect(trace.error).toBeUndefined();
    expect(trace.evaluator).toMatchObject({
      target: "trace",
      askedGroupSettings: { quietPeriodMs: 60_000, endOnRootSpan: true },
      groupSettings: { quietPeriodMs: 60_000, maxWaitMs: 600_000, endMarkerAttribute: "oodle.trace.end", endOnRootSpan: true, sessionKeyAttributes: null, maxSpans: 500, maxTurns: null, maxDocumentBytes: 1_048_576 },
    });
    const session = await create(ws, { name: "Conversation", templateName: "Keyword check", target: "session" });
    expect(session.error).toBeUndefined();
    expect(session.evaluator).toMatchObject({
      target: "session",
      askedGroupSettings: {},
      groupSettings: { quietPeriodMs: 900_000, maxWaitMs: 14_400_000, endMarkerAttribute: "oodle.session.end", endOnRootSpan: null, sessionKeyAttributes: ["session.id", "gen_ai.conversation.id"], maxSpans: 500, maxTurns: 200, maxDocumentBytes: 1_048_576 },
    });
    const span = await create(ws, { name: "Per span", templateName: "Keyword check" });
    expect(span.evaluator).toMatchObject({ target: "span", groupSettings: null, askedGroupSettings: {} });

    // Update replaces what was asked; a null field takes its default; the target may be given unchanged.
    const updated = await update(ws, { id: trace.evaluator.id, target: "trace", groupSettings: { maxWaitMs: 120_000, endMarkerAttribute: null } });
    expect(updated.error).toBeUndefined();
    expect(updated.evaluator.askedGroupSettings).toEqual({ maxWaitMs: 120_000 });
    expect(updated.evaluator.groupSettings).toMatchObject({ quietPeriodMs: 30_000, maxWaitMs: 120_000, endOnRootSpan: false, endMarkerAttribute: "oodle.trace.end" });
    const keyed = await update(ws, { id: session.evaluator.id, groupSettings: { sessionKeyAttribute: "app.conversation", maxTurns: 50 } });
    expect(keyed.evaluator.groupSettings).toMatchObject({ sessionKeyAttributes: ["app.conversation"], maxTurns: 50 });
    // Other fields change without touching them; null resets them to every default.
    const renamed = await update(ws, { id: session.evaluator.id, name: "Whole conversation" });
    expect(renamed.evaluator.askedGroupSettings).toEqual({ sessionKeyAttribute: "app.conversation", maxTurns: 50 });
    const reset = await update(ws, { id: session.evaluator.id, groupSettings: null });
    expect(reset.evaluator.askedGroupSettings).toEqual({});

    const read = await ws.gql(`{ evaluator(name: "Agent trace") { ${FIELDS} } }`);
    expect(read.data!.evaluator).toEqual(updated.evaluator);
    const row = await h.app.prisma.evaluator.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, name: "Agent trace" } });
    expect(row).toMatchObject({ target: "trace", groupSettings: { maxWaitMs: 120_000 } });
  });

  it("refuses each rule at its field, and saves nothing", async () => {
    const ws = await h.workspace("group-refusals");
    await ws.keywordTemplate();
    const base = { templateName: "Keyword check" };
    const refused = async (input: Record<string, unknown>, path: string, message: string | RegExp) => {
      const { error } = await create(ws, { name: `E ${randomUUID().slice(0, 6)}`, ...base, ...input });
      expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
      expect(issuesOf(error)).toEqual([{ path, message: typeof message === "string" ? message : expect.stringMatching(message) }]);
    };
    await refused({ target: "trace", groupSettings: { quietPeriodMs: 500 } }, "groupSettings.quietPeriodMs", "quietPeriodMs of a trace evaluator must be between 1000 (1 s) and 3600000 (1 h); got 500");
    await refused({ target: "session", groupSettings: { quietPeriodMs: 172_800_000 } }, "groupSettings.quietPeriodMs", "quietPeriodMs of a session evaluator must be between 1000 (1 s) and 86400000 (1 d); got 172800000");
    await refused({ target: "trace", groupSettings: { maxWaitMs: 10_000 } }, "groupSettings.maxWaitMs", "maxWaitMs (10000) must not be shorter than quietPeriodMs (30000): the quiet period would never end a group");
    await refused({ target: "session", groupSettings: { endOnRootSpan: true } }, "groupSettings.endOnRootSpan", "endOnRootSpan applies to trace evaluators only (a session has many roots)");
    await refused({ target: "trace", groupSettings: { sessionKeyAttribute: "app.conversation" } }, "groupSettings.sessionKeyAttribute", "sessionKeyAttribute applies to session evaluators only");
    await refused({ target: "trace", groupSettings: { maxTurns: 10 } }, "groupSettings.maxTurns", "maxTurns applies to session evaluators only");
    await refused({ target: "trace", groupSettings: { maxSpans: 6000 } }, "groupSettings.maxSpans", "must be at most 5000 spans (its ceiling)");
    await refused({ groupSettings: { quietPeriodMs: 30_000 } }, "groupSettings.quietPeriodMs", "quietPeriodMs applies to trace and session evaluators only (this evaluator's target is span)");
    await refused({ target: "trace", groupSettings: { maxSpans: 0 } }, "groupSettings.maxSpans", "must be at least 1 span");
    const external = await create(ws, { name: "Judge", kind: "external", target: "trace" });
    expect(issuesOf(external.error)).toEqual([{ path: "target", message: "an external evaluator runs on spans only: external evaluators have their scores posted on spans (give target span, or a code evaluator)" }]);
    expect(await h.app.prisma.evaluator.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);

    // The target is fixed.
    const trace = await create(ws, { name: "Agent trace", ...base, target: "trace" });
    const change = await update(ws, { id: trace.evaluator.id, target: "span" });
    expect(issuesOf(change.error)).toEqual([{ path: "target", message: "cannot change from trace to span: create a new evaluator for another target (its runs are of another kind of thing)" }]);

    // Dependencies: a span evaluator never depends on a trace evaluator; a trace evaluator depends on span evaluators only.
    const spanOnTrace = await create(ws, { name: "Per span", ...base, dependencies: [{ evaluator: "Agent trace" }] });
    expect(issuesOf(spanOnTrace.error)).toEqual([
      { path: "dependencies[0].evaluator", message: '"Agent trace" is a trace evaluator: a span evaluator cannot depend on a trace or session evaluator (its span is evaluated before the trace is done)' },
    ]);
    const check = await create(ws, { name: "Check", ...base });
    expect(check.error).toBeUndefined();
    const session = await create(ws, { name: "Conversation", ...base, target: "session" });
    expect(session.error).toBeUndefined();
    const traceOnSession = await update(ws, { id: trace.evaluator.id, dependencies: [{ evaluator: "Check" }, { evaluator: "Conversation" }] });
    expect(issuesOf(traceOnSession.error)).toEqual([
      { path: "dependencies[1].evaluator", message: '"Conversation" is a session evaluator: a trace or session evaluator depends on span evaluators only (it reads their scores on each span of the group)' },
    ]);
    expect(await h.app.prisma.evaluatorDependency.count({ where: { evaluator: { workspaceId: ws.workspace.id } } })).toBe(0);
    // A trace evaluator on a span evaluator: a gate must say which spans pass (any or all); a span evaluator's gate takes no `spans`.
    const gated = await update(ws, { id: trace.evaluator.id, dependencies: [{ evaluator: "Check", gate: { score: "keyword_check" } }] });
    expect(issuesOf(gated.error)).toEqual([
      { path: "dependencies[0].gate.spans", message: `a trace evaluator's gate says which spans of the trace must pass "Check"'s score: any or all` },
    ]);
    const spanGate = await create(ws, { name: "Per span", ...base, dependencies: [{ evaluator: "Check", gate: { score: "keyword_check", spans: "any" } }] });
    expect(issuesOf(spanGate.error)).toEqual([{ path: "dependencies[0].gate.spans", message: "is for a trace or session evaluator's gate only: a span evaluator's gate decides its one span" }]);
    const traceOnSpan = await ws.gql(`mutation($input: UpdateEvaluatorInput!) { updateEvaluator(input: $input) { evaluator { dependencies { dependsOn { name } gate { score at spans } } } } }`, {
      input: { id: trace.evaluator.id, dependencies: [{ evaluator: "Check", gate: { score: "keyword_check", spans: "all" } }] },
    });
    expect(traceOnSpan.errors).toBeUndefined();
    expect(traceOnSpan.data!.updateEvaluator.evaluator.dependencies).toEqual([{ dependsOn: { name: "Check" }, gate: { score: "keyword_check", at: null, spans: "all" } }]);
    const ungated = await update(ws, { id: trace.evaluator.id, dependencies: [{ evaluator: "Check" }] });
    expect(ungated.error).toBeUndefined();
    // A literal ctx.score("Agent trace") in a span evaluator's code is refused the same way, at templateId.
    const reader = await ws.createTemplate({ name: "Reads the trace", sourceCode: 'def evaluate(ctx):\n    v = ctx.score("Agent trace", "matched")\n    return EvaluationResult(scores=[Score(name="x", value=v)])\n', params: [] });
    expect(reader.error).toBeUndefined();
    const inferred = await create(ws, { name: "Reader", templateName: "Reads the trace" });
    expect(issuesOf(inferred.error)).toEqual([
      {
        path: "templateId",
        message: 'evaluator "Reader": the code reads ctx.score("Agent trace"): "Agent trace" is a trace evaluator: a span evaluator cannot depend on a trace or session evaluator (its span is evaluated before the trace is done)',
      },
    ]);
    const names = (await h.app.prisma.evaluator.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { name: "asc" } })).map((e) => e.name);
    expect(names).toEqual(["Agent trace", "Check", "Conversation"]);
    expect(await h.app.prisma.evaluatorDependency.count({ where: { evaluator: { workspaceId: ws.workspace.id } } })).toBe(1);
  });
});

const at = (hms: string) => new Date(`2099-12-03T${hms}.000Z`);

const EVALUATIONS = `query($traceId: String!) { traceEvaluations(traceId: $traceId) {
  evaluator { name } targetType groupKey state detail spanCount traceIds firstSpanAt lastSpanAt dueAt ranAt staleSince
  run { outcome completion groupSpanCount documentCapped traceId sessionId span { id } scores { name value } history { reason completion groupSpanCount } }
  history { reason outcome completion groupSpanCount documentCapped traceId scores } } }`;

describe("traceEvaluations, sessionEvaluations and Evaluator.stats.groups", () => {
  it("one entry per evaluator with a schedule: its state in words, its current run and history; scoped to the workspace", async () => {
    const ws = await h.workspace("group-read");
    await ws.keywordTemplate();
    const prisma = h.app.prisma;
    const workspaceId = ws.workspace.id;
    const mk = async (name: string, target: string, groupSettings: Record<string, unknown> = {}) =>
      (await prisma.evaluator.findFirstOrThrow({ where: { workspaceId, name: (await create(ws, { name, templateName: "Keyword check", target, groupSettings })).evaluator.name } })).id;
    const ranId = await mk("Trace judge", "trace");
    const staleId = await mk("Trace stale", "trace", { quietPeriodMs: 60_000 });
    const waitingId = await mk("Trace waiting", "trace");
    const sessionId = await mk("Conversation", "session");
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";

    // Ran: one round, quiet period, 7 spans, with its replaced run in history.
    await prisma.groupSchedule.create({
      data: { workspaceId, evaluatorId: ranId, targetType: "trace", groupKey: traceId, traceIds: [traceId], firstSpanAt: at("15:00:00"), lastSpanAt: at("15:00:05"), spanCount: 7, quietPeriodMs: 30_000, maxWaitMs: 600_000, dueAt: null, generation: 2, queuedGeneration: 2, queuedAt: at("15:00:36"), ranGeneration: 2, ranAt: at("15:00:37") },
    });
    await prisma.run.create({
      data: { workspaceId, evaluatorId: ranId, traceId, outcome: "ok", completion: "quiet_period", groupSpanCount: 7, finishedAt: at("15:00:37"), scores: { create: [{ workspaceId, evaluatorId: ranId, name: "coherent", dataType: "BOOLEAN", value: true, numericValue: 1, position: 0 }] } },
    });
    await prisma.runHistory.create({
      data: { id: randomUUID(), workspaceId, evaluatorId: ranId, traceId, outcome: "ok", completion: "max_wait", groupSpanCount: 3, documentCapped: true, createdAt: at("14:50:00"), supersededAt: at("15:00:37"), reason: "group_changed", scores: [{ name: "coherent", value: false }] },
    });
    // Stale: ran at 15:00:32, a late span at 15:02:00 (quiet 60 s → due 15:03:00).
    await prisma.groupSchedule.create({
      data: { workspaceId, evaluatorId: staleId, targetType: "trace", groupKey: traceId, traceIds: [traceId], firstSpanAt: at("15:02:00"), lastSpanAt: at("15:02:00"), spanCount: 8, quietPeriodMs: 60_000, maxWaitMs: 600_000, dueAt: at("15:03:00"), generation: 2, queuedGeneration: 1, queuedAt: at("15:01:01"), ranGeneration: 1, ranAt: at("15:01:02"), staleSince: at("15:02:00") },
    });
    await prisma.run.create({ data: { workspaceId, evaluatorId: staleId, traceId, outcome: "ok", completion: "end_marker", groupSpanCount: 7, finishedAt: at("15:01:02") } });
    // Waiting: the maximum wait first (15:00:00 + 10 min = 15:10:00 before 15:09:45 + 30 s).
    await prisma.groupSchedule.create({
      data: { workspaceId, evaluatorId: waitingId, targetType: "trace", groupKey: traceId, traceIds: [traceId], firstSpanAt: at("15:00:00"), lastSpanAt: at("15:09:45"), spanCount: 40, quietPeriodMs: 30_000, maxWaitMs: 600_000, dueAt: at("15:10:00") },
    });
    // The session evaluator: queued on session conv-42 (two traces).
    await prisma.groupSchedule.create({
      data: { workspaceId, evaluatorId: sessionId, targetType: "session", groupKey: "conv-42", traceIds: [traceId, "t2"], firstSpanAt: at("15:00:00"), lastSpanAt: at("15:00:00"), spanCount: 3, quietPeriodMs: 900_000, maxWaitMs: 14_400_000, dueAt: at("15:15:00"), queuedGeneration: 1, queuedAt: at("15:15:01") },
    });
    // Another workspace's trace evaluator on the same trace id: invisible here.
    const other = await h.workspace("group-read-other");
    await other.keywordTemplate();
    const theirs = await create(other, { name: "Theirs", templateName: "Keyword check", target: "trace" });
    const theirId = (await prisma.evaluator.findFirstOrThrow({ where: { workspaceId: other.workspace.id, name: theirs.evaluator.name } })).id;
    await prisma.groupSchedule.create({ data: { workspaceId: other.workspace.id, evaluatorId: theirId, targetType: "trace", groupKey: traceId, traceIds: [traceId], firstSpanAt: at("15:00:00"), lastSpanAt: at("15:00:00"), spanCount: 1, quietPeriodMs: 30_000, maxWaitMs: 600_000, dueAt: at("15:00:30") } });

    const res = await clientAtFive.request(EVALUATIONS, { traceId }, ws.secret);
    expect(res.errors).toBeUndefined();
    const list = res.data!.traceEvaluations;
    expect(list.map((g: any) => [g.evaluator.name, g.state])).toEqual([["Trace judge", "ran"], ["Trace stale", "stale"], ["Trace waiting", "waiting"]]);
    expect(list[0]).toMatchObject({
      targetType: "trace",
      groupKey: traceId,
      detail: "ran at 2099-12-03T15:00:37.000Z (quiet period, 7 spans)",
      spanCount: 7,
      traceIds: [traceId],
      dueAt: null,
      ranAt: "2099-12-03T15:00:37.000Z",
      run: { outcome: "ok", completion: "quiet_period", groupSpanCount: 7, documentCapped: false, traceId, sessionId: null, span: null, scores: [{ name: "coherent", value: true }], history: [{ reason: "group_changed", completion: "max_wait", groupSpanCount: 3 }] },
      history: [{ reason: "group_changed", outcome: "ok", completion: "max_wait", groupSpanCount: 3, documentCapped: true, traceId, scores: [{ name: "coherent", value: false }] }],
    });
    expect(list[1]).toMatchObject({
      detail: "ran at 2099-12-03T15:01:02.000Z (end marker, 7 spans), stale since 2099-12-03T15:02:00.000Z, runs again at 2099-12-03T15:03:00.000Z (1 min after the latest span); due, not queued yet",
      staleSince: "2099-12-03T15:02:00.000Z",
      dueAt: "2099-12-03T15:03:00.000Z",
      history: [],
    });
    // At 15:05:00 the stale one's 15:03:00 has passed (not queued yet); the waiting one's 15:10:00 has not.
    expect(list[2].detail).toBe("waiting: the maximum wait ends at 2099-12-03T15:10:00.000Z (10 min after the first span)");
    expect(list[2].run).toBeNull();

    const sessions = await clientAtFive.request(`{ sessionEvaluations(sessionId: "conv-42") { evaluator { name } targetType state detail traceIds run { id } } }`, {}, ws.secret);
    expect(sessions.data!.sessionEvaluations).toEqual([
      { evaluator: { name: "Conversation" }, targetType: "session", state: "queued", detail: "queued at 2099-12-03T15:15:01.000Z (the quiet period ended at 2099-12-03T15:15:00.000Z)", traceIds: [traceId, "t2"], run: null },
    ]);
    // A trace id is not a session key: nothing.
    expect((await ws.gql(`{ sessionEvaluations(sessionId: "${traceId}") { state } }`)).data!.sessionEvaluations).toEqual([]);
    expect((await other.gql(EVALUATIONS, { traceId })).data!.traceEvaluations.map((g: any) => g.evaluator.name)).toEqual(["Theirs"]);
    const empty = await ws.gql(`{ traceEvaluations(traceId: " ") { state } }`);
    expect(issuesOf(empty.errors?.[0])).toEqual([{ path: "traceId", message: "must not be empty" }]);

    // Evaluator.stats.groups: counts by state (the SQL rule agrees with groupState); null for a span evaluator.
    const stats = async (name: string) => (await ws.gql(`{ evaluator(name: "${name}") { stats { groups { waiting queued ran stale } } } }`)).data!.evaluator.stats.groups;
    // A second trace for "Trace judge": waiting (never ran); a third: stale-and-queued (queued).
    await prisma.groupSchedule.create({ data: { workspaceId, evaluatorId: ranId, targetType: "trace", groupKey: "t-b", traceIds: ["t-b"], firstSpanAt: at("15:00:00"), lastSpanAt: at("15:00:00"), spanCount: 1, quietPeriodMs: 30_000, maxWaitMs: 600_000, dueAt: at("15:00:30") } });
    await prisma.groupSchedule.create({
      data: { workspaceId, evaluatorId: ranId, targetType: "trace", groupKey: "t-c", traceIds: ["t-c"], firstSpanAt: at("15:00:00"), lastSpanAt: at("15:00:00"), spanCount: 2, quietPeriodMs: 30_000, maxWaitMs: 600_000, dueAt: at("15:00:30"), generation: 2, queuedGeneration: 2, ranGeneration: 1, staleSince: at("15:00:00") },
    });
    // A fourth: round 1 queued and not run, round 2 pending behind it (queued).
    await prisma.groupSchedule.create({
      data: { workspaceId, evaluatorId: ranId, targetType: "trace", groupKey: "t-d", traceIds: ["t-d"], firstSpanAt: at("15:00:40"), lastSpanAt: at("15:00:40"), spanCount: 2, quietPeriodMs: 30_000, maxWaitMs: 600_000, dueAt: at("15:01:10"), generation: 2, queuedGeneration: 1, staleSince: at("15:00:40") },
    });
    expect(await stats("Trace judge")).toEqual({ waiting: 1, queued: 2, ran: 1, stale: 0 });
    expect(await stats("Trace stale")).toEqual({ waiting: 0, queued: 0, ran: 0, stale: 1 });
    expect(await stats("Trace waiting")).toEqual({ waiting: 1, queued: 0, ran: 0, stale: 0 });
    expect(await stats("Conversation")).toEqual({ waiting: 0, queued: 1, ran: 0, stale: 0 });
    await create(ws, { name: "Per span", templateName: "Keyword check" });
    expect(await stats("Per span")).toBeNull();
  });
});
