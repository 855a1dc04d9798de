// Backfills of trace and session evaluators (docs/evaluation.md § Backfills, § Targets): the
// window selects groups (a span of the group its rule matches started in it), each group runs once
// with the live document (the same score as tryCode on it), Run.completion null; maxSpans,
// sampleRate and the filter select groups; rerun keeps history; a retried batch adds no duplicate;
// the span evaluators it depends on are read by their current scores.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { samplingDraw } from "../../src/modules/spans/matching.js";
import { liveHarness } from "../runs/helpers.js";

const TRACE_SOURCE = `def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="spans", value=len(ctx.trace.spans), comment=",".join(s.name for s in ctx.trace.spans))])
`;
const SESSION_SOURCE = `from oodle_eval.v1 import text

def evaluate(ctx):
    turns = text.turns(ctx)
    return EvaluationResult(scores=[
        Score(name="turns", value=len(turns), comment=" | ".join(t["role"] + ": " + str(t["content"]) for t in turns)),
        Score(name="traces", value=len(ctx.session.traces)),
    ])
`;
const LEN_SOURCE = `from oodle_eval.v1 import text

def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="n", value=len(text.reply(ctx)))])
`;
const SUM_SOURCE = `def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="total", value=sum(s.scores.get("Len", {}).get("n", 0) for s in ctx.trace.spans))])
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "bf-groups", queues: ["backfill-batch"] });
}, 120_000);
afterAll(() => h.close());

/** The window: [base, base + 1 h), two hours ago. */
const base = Date.now() - 2 * 3_600_000;
const WINDOW = { windowStart: new Date(base).toISOString(), windowEnd: new Date(base + 3_600_000).toISOString() };
const at = (s: number) => new Date(base + s * 1000).toISOString();

function span(traceId: string, spanId: string, offsetS: number, extra: Record<string, unknown> = {}) {
  return { traceId, spanId, name: spanId, kind: "agent", startTime: at(offsetS), endTime: at(offsetS + 0.5), ...extra };
}

async function evaluatorOf(ws: Awaited<ReturnType<typeof h.workspace>>, name: string, source: string, rule: Record<string, unknown>) {
  const { template } = await h.app.services.templates.createTemplate(ws.principal, { name, sourceCode: source });
  return h.app.services.evaluators.createEvaluator(ws.principal, { name, templateId: template.id, ...rule });
}

async function finished(id: string) {
  for (const deadline = Date.now() + 240_000; ; ) {
    const row = await h.app.prisma.backfill.findUniqueOrThrow({ where: { id } });
    if (row.status !== "queued" && row.status !== "running") return row;
    if (Date.now() > deadline) throw new Error(`still ${row.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The group keys a backfill chose, in order. */
async function keysOf(backfillId: string) {
  return (await h.app.prisma.backfillSpan.findMany({ where: { backfillId }, orderBy: { position: "asc" }, select: { groupKey: true } })).map((r) => r.groupKey);
}

const runsOf = (evaluatorId: string) =>
  h.app.prisma.run.findMany({ where: { evaluatorId }, include: { scores: { orderBy: { position: "asc" } } }, orderBy: { traceId: "asc" } });

/**
 * Traces ta, tb, tc start in the window with an agent root; tmix's root is a day earlier but an
 * agent child starts in the window; told is a day earlier; ttool has tool spans only.
 */
async function traces(label: string) {
  const ws = await h.workspace(label);
  const ingested = await h.app.services.spans.ingestSpans(ws.principal, [
    span("ta", "root-a", 0), span("ta", "chat-a", 1, { kind: "chat", parentSpanId: "root-a" }),
    span("tb", "root-b", 10), span("tb", "tool-b1", 11, { kind: "tool", parentSpanId: "root-b" }), span("tb", "tool-b2", 12, { kind: "tool", parentSpanId: "root-b" }),
    span("tc", "root-c", 20),
    span("tmix", "root-mix", -86_400), span("tmix", "late-mix", 30, { parentSpanId: "root-mix" }),
    span("told", "root-old", -86_400),
    span("ttool", "tool-only", 40, { kind: "tool" }),
  ]);
  expect(ingested.rejected).toEqual([]);
  const evaluator = await evaluatorOf(ws, "Size", TRACE_SOURCE, { spanKind: "agent", target: "trace" });
  return { ws, evaluator };
}

describe("a backfill of a trace evaluator", () => {
  it("runs once on each trace the window selects, with tryCode's score on it; skips evaluated traces; rerun keeps history; a retried batch adds no duplicate", { timeout: 300_000 }, async () => {
    const { ws, evaluator } = await traces("bf-trace");
    const input = { evaluatorId: evaluator.id, ...WINDOW };
    const estimate = await h.app.services.backfills.estimateBackfill(ws.principal, input);
    expect(estimate).toMatchObject({ target: "trace", spans: 4, groups: 4, runs: 4, reruns: 0, evaluators: [{ spansMatched: 4, alreadyEvaluated: 0, toRun: 4 }] });

    const { backfill } = await h.app.services.backfills.createBackfill(ws.principal, input);
    expect(await keysOf(backfill.id)).toEqual(["ta", "tb", "tc", "tmix"]);
    expect((await finished(backfill.id)).status).toBe("completed");
    const runs = await runsOf(evaluator.id);
    expect(runs.map((r) => [r.traceId, r.spanId, r.sessionId, r.backfillId, r.completion, r.groupSpanCount, r.documentCapped, r.outcome])).toEqual([
      ["ta", null, null, backfill.id, null, 2, false, "ok"],
      ["tb", null, null, backfill.id, null, 3, false, "ok"],
      ["tc", null, null, backfill.id, null, 1, false, "ok"],
      ["tmix", null, null, backfill.id, null, 2, false, "ok"],
    ]);
    expect(runs.map((r) => [r.traceId, r.scores[0]!.value, r.scores[0]!.comment])).toEqual([
      ["ta", 2, "root-a,chat-a"],
      ["tb", 3, "root-b,tool-b1,tool-b2"],
      ["tc", 1, "root-c"],
      ["tmix", 2, "root-mix,late-mix"],
    ]);
    for (const run of runs) {
      const tried = await h.app.services.tryCode.tryCode(ws.principal, { templateId: evaluator.templateId!, traceId: run.traceId! });
      expect(tried.scores.map((s) => [s.name, s.value, s.comment])).toEqual(run.scores.map((s) => [s.name, s.value, s.comment]));
    }

    // Again without rerun: every trace has a current run, so nothing runs.
    expect(await h.app.services.backfills.estimateBackfill(ws.principal, input)).toMatchObject({ groups: 4, runs: 0, evaluators: [{ alreadyEvaluated: 4, toRun: 0 }] });
    const again = (await h.app.services.backfills.createBackfill(ws.principal, input)).backfill;
    expect((await finished(again.id)).status).toBe("completed");
    expect(await h.app.prisma.backfillBatch.findMany({ where: { backfillId: again.id }, select: { spans: true, runsRecorded: true, pairsSkipped: true } })).toEqual([{ spans: 4, runsRecorded: 0, pairsSkipped: 4 }]);
    expect((await runsOf(evaluator.id)).map((r) => r.id)).toEqual(runs.map((r) => r.id));

    // With rerun: each trace runs again, the earlier run kept in RunHistory with the backfill's reason.
    expect(await h.app.services.backfills.estimateBackfill(ws.principal, { ...input, rerun: true })).toMatchObject({ runs: 4, reruns: 4 });
    const rerun = (await h.app.services.backfills.createBackfill(ws.principal, { ...input, rerun: true, batchSize: 2 })).backfill;
    expect((await finished(rerun.id)).status).toBe("completed");
    const replaced = await runsOf(evaluator.id);
    expect(replaced.map((r) => [r.traceId, r.backfillId, r.scores[0]!.value])).toEqual([
      ["ta", rerun.id, 2], ["tb", rerun.id, 3], ["tc", rerun.id, 1], ["tmix", rerun.id, 2],
    ]);
    const history = await h.app.prisma.runHistory.findMany({ where: { evaluatorId: evaluator.id }, orderBy: { traceId: "asc" } });
    expect(history.map((r) => [r.id, r.traceId, r.reason, r.supersededByBackfillId, r.backfillId])).toEqual(runs.map((r) => [r.id, r.traceId, "backfill_rerun", rerun.id, backfill.id]));

    // A retried batch (the job ran again, or a worker took it over): what committed is not redone.
    await h.app.prisma.backfill.update({ where: { id: rerun.id }, data: { status: "running", finishedAt: null } });
    expect(await h.app.services.backfillBatch({ backfillId: rerun.id, batch: 0 }, { attempt: 2, last: false })).toEqual({ recorded: 0, superseded: 0, skipped: 2, deferred: 0, stopped: false });
    // A run that did not commit (removed here) is the only one recorded again.
    await h.app.prisma.run.deleteMany({ where: { evaluatorId: evaluator.id, traceId: "tb" } });
    await h.app.prisma.backfill.update({ where: { id: rerun.id }, data: { status: "running", finishedAt: null } }); // the retry above completed it again
    expect(await h.app.services.backfillBatch({ backfillId: rerun.id, batch: 0 }, { attempt: 3, last: false })).toEqual({ recorded: 1, superseded: 0, skipped: 1, deferred: 0, stopped: false });
    const after = await runsOf(evaluator.id);
    expect(after.map((r) => [r.traceId, r.backfillId, r.attempts])).toEqual([["ta", rerun.id, 1], ["tb", rerun.id, 3], ["tc", rerun.id, 1], ["tmix", rerun.id, 1]]);
    expect(await h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } })).toBe(4);
    expect(await h.app.prisma.backfillBatch.findMany({ where: { backfillId: rerun.id }, orderBy: { batch: "asc" }, select: { batch: true, runsRecorded: true } })).toEqual([{ batch: 0, runsRecorded: 2 }, { batch: 1, runsRecorded: 2 }]);
  });

  it("selects groups by maxSpans (the earliest first), the filter and a per-group sampling draw", { timeout: 300_000 }, async () => {
    const { ws, evaluator } = await traces("bf-trace-select");
    const input = { evaluatorId: evaluator.id, ...WINDOW };
    const chosen = async (extra: Record<string, unknown>) => {
      const { backfill, estimate } = await h.app.services.backfills.createBackfill(ws.principal, { ...input, ...extra });
      await finished(backfill.id);
      return { keys: await keysOf(backfill.id), groups: estimate.groups };
    };
    expect(await chosen({ maxSpans: 2 })).toEqual({ keys: ["ta", "tb"], groups: 2 });
    expect(await chosen({ filter: { traceIds: ["tc", "tmix", "told"] } })).toEqual({ keys: ["tc", "tmix"], groups: 2 });
    // The filter applies to the span that selects: tmix's root (a day earlier) is outside the window.
    expect(await chosen({ filter: { rootSpansOnly: true } })).toEqual({ keys: ["ta", "tb", "tc"], groups: 3 });
    // The draw is per group: SHA-256 of the trace id with the seed backfill:trace.
    const sampled = ["ta", "tb", "tc", "tmix"].filter((k) => samplingDraw(k, "", "backfill:trace") < 0.3);
    expect(sampled.length).toBeGreaterThan(0);
    expect(sampled.length).toBeLessThan(4);
    expect(await chosen({ sampleRate: 0.3 })).toEqual({ keys: sampled, groups: sampled.length });
  });

  it("reads the current scores of the span evaluators it depends on, per span, as live; refuses includeDependencies and a filter on its own span runs", { timeout: 300_000 }, async () => {
    const ws = await h.workspace("bf-trace-deps");
    await h.app.services.spans.ingestSpans(ws.principal, [
      span("td1", "root", 0), span("td1", "c1", 1, { kind: "chat", parentSpanId: "root", output: "hello" }), span("td1", "c2", 2, { kind: "chat", parentSpanId: "root", output: "four" }),
      span("td2", "root", 5),
    ]);
    const len = await evaluatorOf(ws, "Len", LEN_SOURCE, { spanKind: "chat" });
    const sum = await evaluatorOf(ws, "Sum", SUM_SOURCE, { spanKind: "agent", target: "trace", dependencies: [{ evaluator: len.id }] });
    await expect(h.app.services.backfills.estimateBackfill(ws.principal, { evaluatorId: sum.id, ...WINDOW, includeDependencies: true })).rejects.toMatchObject({ issues: [{ path: "includeDependencies", message: expect.stringContaining('"Sum" is a trace evaluator') }] });
    await expect(h.app.services.backfills.estimateBackfill(ws.principal, { evaluatorId: sum.id, ...WINDOW, filter: { outcomes: ["ok"] } })).rejects.toMatchObject({ issues: [{ path: "filter.outcomes", message: expect.stringContaining("its runs are on traces, not spans") }] });
    const spans = (await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: len.id, ...WINDOW })).backfill;
    expect((await finished(spans.id)).status).toBe("completed");
    const groups = (await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: sum.id, ...WINDOW })).backfill;
    expect((await finished(groups.id)).status).toBe("completed");
    const runs = await runsOf(sum.id);
    expect(runs.map((r) => [r.traceId, r.scores[0]!.value, r.missingDependencies])).toEqual([["td1", 9, []], ["td2", 0, ["Len"]]]);
    expect(Object.values(runs[0]!.inputRunIds as Record<string, string>)).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);

    // Gates as live: "all" spans at 5 fails td1 on c2 (4 characters) and td2 (no Len run at all); "any" lets td1 through.
    const rerunWith = async (spans: "any" | "all") => {
      await h.app.services.evaluators.updateEvaluator(ws.principal, sum.id, { dependencies: [{ evaluator: "Len", gate: { score: "n", at: 5, spans } }] });
      const again = (await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: sum.id, ...WINDOW, rerun: true })).backfill;
      expect((await finished(again.id)).status).toBe("completed");
      return (await runsOf(sum.id)).map((r) => [r.traceId, r.outcome, r.skipReason, r.scores.map((x) => x.value)]);
    };
    expect(await rerunWith("all")).toEqual([
      ["td1", "skipped", 'gate on "Len" score "n" (all spans): span "c2" (c2) did not pass (value 4 (passes at >= 5))', []],
      ["td2", "skipped", 'gate on "Len" score "n" (all spans): "Len" has no run on any span (did not match, or no scores posted)', []],
    ]);
    expect((await rerunWith("any")).map((r) => r.slice(0, 2))).toEqual([["td1", "ok"], ["td2", "skipped"]]);
  });
});

describe("a backfill of a session evaluator", () => {
  it("runs once on each conversation of the window (by its session keys), with tryCode's scores on it", { timeout: 300_000 }, async () => {
    const ws = await h.workspace("bf-session");
    const turn = (traceId: string, offsetS: number, key: Record<string, unknown>, user: string, reply: string) =>
      span(traceId, "chat", offsetS, { kind: "chat", attributes: key, input: [{ role: "user", content: user }], output: { role: "assistant", content: reply } });
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [
      turn("c1", 0, { "session.id": "conv-1" }, "My order broke.", "Sorry! Refund?"),
      turn("c2", 10, { "session.id": "conv-1" }, "Yes please.", "Done."),
      span("c2", "lookup", 11, { kind: "tool", parentSpanId: "chat" }),
      turn("c3", 20, { "gen_ai.conversation.id": "conv-1" }, "How long?", "Three days."),
      turn("d1", 30, { "gen_ai.conversation.id": "conv-2" }, "Hi", "Hello"),
      turn("o1", -86_400, { "session.id": "conv-old" }, "Old", "Old reply"),
      turn("n1", 40, {}, "No key", "No session"),
    ]);
    expect(ingested.rejected).toEqual([]);
    const evaluator = await evaluatorOf(ws, "Conversation", SESSION_SOURCE, { spanKind: "chat", target: "session" });
    const input = { evaluatorId: evaluator.id, ...WINDOW };
    expect(await h.app.services.backfills.estimateBackfill(ws.principal, input)).toMatchObject({ target: "session", groups: 2, runs: 2 });
    const { backfill } = await h.app.services.backfills.createBackfill(ws.principal, input);
    expect(await keysOf(backfill.id)).toEqual(["conv-1", "conv-2"]);
    expect((await finished(backfill.id)).status).toBe("completed");
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, include: { scores: { orderBy: { position: "asc" } } }, orderBy: { sessionId: "asc" } });
    expect(runs.map((r) => [r.sessionId, r.traceId, r.backfillId, r.completion, r.groupSpanCount, r.documentCapped])).toEqual([
      ["conv-1", null, backfill.id, null, 4, false],
      ["conv-2", null, backfill.id, null, 1, false],
    ]);
    expect(runs[0]!.scores.map((s) => [s.name, s.value, s.comment])).toEqual([
      ["turns", 6, "user: My order broke. | assistant: Sorry! Refund? | user: Yes please. | assistant: Done. | user: How long? | assistant: Three days."],
      ["traces", 3, null],
    ]);
    for (const run of runs) {
      const tried = await h.app.services.tryCode.tryCode(ws.principal, { templateId: evaluator.templateId!, sessionId: run.sessionId! });
      expect(tried.scores.map((s) => [s.name, s.value, s.comment])).toEqual(run.scores.map((s) => [s.name, s.value, s.comment]));
    }
    // maxSpans counts sessions; a later span of conv-1 (c3) does not make it a second group.
    const one = (await h.app.services.backfills.createBackfill(ws.principal, { ...input, maxSpans: 1, rerun: true })).backfill;
    expect([await keysOf(one.id), one.spanCount]).toEqual([["conv-1"], 1]);
    expect((await finished(one.id)).status).toBe("completed");
    expect(await h.app.prisma.runHistory.findMany({ where: { evaluatorId: evaluator.id }, select: { sessionId: true, reason: true, completion: true } })).toEqual([{ sessionId: "conv-1", reason: "backfill_rerun", completion: null }]);
  });
  it("attack: another evaluator's session: a backfill of session \"x\" reads the traces every session evaluator's schedule lists under \"x\" (by its own session keys), not only its own", { timeout: 300_000 }, async () => {
    const ws = await h.workspace("bf-session-other");
    // A (default keys: session.id, gen_ai.conversation.id) and B (conversation.id) both exist when the spans arrive.
    const a = await evaluatorOf(ws, "Conversation A", SESSION_SOURCE, { spanKind: "chat", target: "session" });
    await evaluatorOf(ws, "Conversation B", SESSION_SOURCE, { spanKind: "chat", target: "session", groupSettings: { sessionKeyAttribute: "conversation.id" } });
    const turn = (traceId: string, offsetS: number, key: Record<string, unknown>, user: string) =>
      span(traceId, "chat", offsetS, { kind: "chat", attributes: key, input: [{ role: "user", content: user }], output: { role: "assistant", content: "ok" } });
    expect((await h.app.services.spans.ingestSpans(ws.principal, [turn("x1", 0, { "session.id": "x" }, "A's turn"), turn("x2", 10, { "conversation.id": "x" }, "B's turn")])).rejected).toEqual([]);
    // A's session x holds x1 only; B's session x holds x2 only.
    const schedules = await h.app.prisma.groupSchedule.findMany({ where: { workspaceId: ws.workspace.id }, select: { evaluatorId: true, groupKey: true, traceIds: true } });
    expect(schedules.filter((r) => r.evaluatorId === a.id)).toEqual([{ evaluatorId: a.id, groupKey: "x", traceIds: ["x1"] }]);
    const { backfill } = await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: a.id, ...WINDOW });
    expect((await finished(backfill.id)).status).toBe("completed");
    const [run] = await h.app.prisma.run.findMany({ where: { evaluatorId: a.id }, include: { scores: { orderBy: { position: "asc" } } } });
    expect([run!.sessionId, run!.groupSpanCount, run!.scores.map((x) => [x.name, x.value])]).toEqual(["x", 1, [["turns", 2], ["traces", 1]]]);
  });
  it("attack: a backfilled group without a live schedule gets one, as ran: it is listed, and a dependency's new run on its spans makes it stale", { timeout: 300_000 }, async () => {
    // Staleness moves GroupSchedule rows (runs/group-staleness.ts); a trace whose spans arrived before the
    // evaluator existed had none, so its backfill's run stayed current for ever. The backfill now writes it.
    const ws = await h.workspace("bf-stale-unscheduled");
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [span("u1", "root-u", 0)]);
    await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Judge", kind: "external" });
    await h.app.services.dependencies.submitScores(ws.principal, { spanId: ingested.spans[0]!.id, evaluator: "Judge", scores: [{ name: "helpful", value: 0.9 }] });
    const evaluator = await evaluatorOf(ws, "Size", TRACE_SOURCE, { spanKind: "agent", target: "trace", dependencies: [{ evaluator: "Judge" }] });
    const { backfill } = await h.app.services.backfills.createBackfill(ws.principal, { evaluatorId: evaluator.id, ...WINDOW });
    expect((await finished(backfill.id)).status).toBe("completed");
    expect(await h.app.prisma.run.count({ where: { evaluatorId: evaluator.id, traceId: "u1", backfillId: backfill.id } })).toBe(1);
    await h.app.services.dependencies.submitScores(ws.principal, { spanId: ingested.spans[0]!.id, evaluator: "Judge", scores: [{ name: "helpful", value: 0.1 }] });
    const schedule = await h.app.prisma.groupSchedule.findFirst({ where: { evaluatorId: evaluator.id, groupKey: "u1" } });
    expect(schedule).toMatchObject({ generation: 2, ranGeneration: 1, spanCount: 1, traceIds: ["u1"] });
    expect(schedule!.dueAt).not.toBeNull();
    // The trace view lists it, saying a backfill ran it.
    const [view] = await h.app.services.groupEvaluations.groupEvaluations(ws.principal, "trace", "u1");
    expect(view).toMatchObject({ state: "stale" });
    expect(view!.detail).toMatch(/^ran at \S+ \(by a backfill, 1 span\), stale since /);
  });
});
