// Trace evaluators on the live path (issue 29): spans ingested through the service, the schedule in
// GroupSchedule, the due poller driven by a clock the test moves (no sleeping for the quiet period),
// the job through the real queue and sandbox, one current run per (trace, evaluator) with history.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/lib/clock.js";
import { liveHarness, waitFor } from "../runs/helpers.js";

/** A clock `offsetMs` ahead of the system's. */
const clock: Clock & { offsetMs: number } = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };

/** Scores a trace with its span count and its span names in start order (a comment). */
const TRACE_SOURCE = `
def evaluate(ctx):
    names = ",".join(s.name for s in ctx.trace.spans)
    return EvaluationResult(scores=[Score(name="spans", value=len(ctx.trace.spans), comment=names)])
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "groups", clock });
});
afterAll(() => h.close());

/** A workspace with a trace evaluator of `groupSettings`. */
async function traceEvaluator(groupSettings: Record<string, number> = {}) {
  const ws = await h.workspace();
  const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Trace size", sourceCode: TRACE_SOURCE });
  const created = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Trace size", templateId: template.template.id, spanKind: "agent" });
  const evaluator = await h.app.prisma.evaluator.update({ where: { id: created.id }, data: { target: "trace", groupSettings } });
  return { ws, evaluator };
}

const base = Date.parse("2026-12-03T10:00:00.000Z");
function span(traceId: string, spanId: string, name: string, kind: string, startOffsetS: number, extra: Record<string, unknown> = {}) {
  return { traceId, spanId, name, kind, startTime: new Date(base + startOffsetS * 1000).toISOString(), endTime: new Date(base + startOffsetS * 1000 + 500).toISOString(), ...extra };
}

async function runsOf(evaluatorId: string) {
  return h.app.prisma.run.findMany({ where: { evaluatorId }, include: { scores: true } });
}

describe("trace evaluators", () => {
  it("runs once after the quiet period on every span of the trace, and again with history when a late span arrives", async () => {
    const { ws, evaluator } = await traceEvaluator();
    clock.offsetMs = 0;
    // The agent span matches the rule (kind agent); the tool spans extend the trace; sent out of order.
    await h.app.services.spans.ingestSpans(ws.principal, [
      span("t-quiet", "tool-2", "search", "tool", 2, { parentSpanId: "agent" }),
      span("t-quiet", "agent", "agent", "agent", 0),
      span("t-quiet", "tool-1", "lookup", "tool", 1, { parentSpanId: "agent" }),
    ]);
    const schedule = await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect(schedule).toMatchObject({ targetType: "trace", groupKey: "t-quiet", spanCount: 3, generation: 1, queuedGeneration: null, quietPeriodMs: 30_000, maxWaitMs: 600_000 });
    expect(schedule.dueAt!.getTime() - schedule.lastSpanAt.getTime()).toBe(30_000);

    // explainMatch on a span of the trace says the rule took it and that it waits for quiet.
    const agent = await h.app.prisma.span.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, traceId: "t-quiet", spanId: "agent" } });
    const tool = await h.app.prisma.span.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, traceId: "t-quiet", spanId: "tool-1" } });
    const before = await h.app.services.spans.explainMatch(ws.workspace.id, agent.id, evaluator.id);
    expect(before.decision.matched).toBe(true);
    expect(before.decision.detail).toBe(`this span matches; the trace "t-quiet" is taken: waiting: quiet until ${schedule.dueAt!.toISOString()} (30 s after the latest span)`);
    expect(before.run).toBeNull();
    const ofTool = await h.app.services.spans.explainMatch(ws.workspace.id, tool.id, evaluator.id);
    expect(ofTool.decision).toMatchObject({ matched: false, reason: "kind" });
    expect(ofTool.decision.detail).toMatch(/^this span does not match \(the span's kind is "tool"; the evaluator runs on "agent" spans\); the trace "t-quiet" is taken: waiting: quiet until/);

    // 29 s later it is not due; at 31 s it is, once.
    clock.offsetMs = 29_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(0);
    clock.offsetMs = 31_000;
    const polled = await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id });
    expect(polled.queued).toBe(1);
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(0);
    await waitFor(async () => (await runsOf(evaluator.id)).length, 1);
    const [first] = await runsOf(evaluator.id);
    expect(first).toMatchObject({ outcome: "ok", traceId: "t-quiet", spanId: null, completion: "quiet_period", groupSpanCount: 3, documentCapped: false });
    expect(first!.scores.map((s) => [s.name, s.value, s.comment])).toEqual([["spans", 3, "agent,lookup,search"]]);
    const ran = await h.app.prisma.groupSchedule.findUniqueOrThrow({ where: { id: schedule.id } });
    expect(ran).toMatchObject({ ranGeneration: 1, dueAt: null, staleSince: null });
    const after = await h.app.services.spans.explainMatch(ws.workspace.id, agent.id, evaluator.id);
    expect(after.run?.id).toBe(first!.id);
    expect(after.decision.detail).toMatch(/^this span matches; the trace "t-quiet" is taken: ran at /);

    // A late span: the trace is stale and runs again after the next quiet period; the first run is history.
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-quiet", "tool-3", "answer", "tool", 3, { parentSpanId: "agent" })]);
    const stale = await h.app.prisma.groupSchedule.findUniqueOrThrow({ where: { id: schedule.id } });
    expect(stale).toMatchObject({ generation: 2, ranGeneration: 1, spanCount: 4 });
    expect(stale.staleSince!.getTime()).toBe(stale.lastSpanAt.getTime());
    expect(stale.dueAt!.getTime()).toBe(stale.lastSpanAt.getTime() + 30_000);
    clock.offsetMs = 62_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(async () => h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } }), 1);
    const runs = await runsOf(evaluator.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.scores.map((s) => [s.value, s.comment])).toEqual([[4, "agent,lookup,search,answer"]]);
    const history = await h.app.prisma.runHistory.findMany({ where: { evaluatorId: evaluator.id } });
    expect(history.map((r) => [r.id, r.reason, r.traceId, r.groupSpanCount])).toEqual([[first!.id, "group_changed", "t-quiet", 3]]);
    expect(await h.app.prisma.groupSchedule.findUniqueOrThrow({ where: { id: schedule.id } })).toMatchObject({ ranGeneration: 2, staleSince: null, dueAt: null });
  });

  it("runs at once on an end marker", async () => {
    const { ws, evaluator } = await traceEvaluator();
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-marker", "agent", "agent", "agent", 0, { attributes: { "oodle.trace.end": true } })]);
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(async () => (await runsOf(evaluator.id)).length, 1);
    expect((await runsOf(evaluator.id))[0]).toMatchObject({ completion: "end_marker", groupSpanCount: 1 });
  });

  it("runs at the maximum wait on what has arrived, and says so", async () => {
    const { ws, evaluator } = await traceEvaluator({ quietPeriodMs: 30_000, maxWaitMs: 60_000 });
    // Spans keep coming every 25 s: the quiet period never ends, the maximum wait does (60 s after the first).
    for (const [i, at] of [0, 25_000, 50_000].entries()) {
      clock.offsetMs = at;
      await h.app.services.spans.ingestSpans(ws.principal, [span("t-wait", `s${i}`, i === 0 ? "agent" : `step-${i}`, i === 0 ? "agent" : "tool", i)]);
      expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(0);
    }
    const schedule = await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect(schedule.dueAt!.getTime()).toBe(schedule.firstSpanAt.getTime() + 60_000);
    clock.offsetMs = 61_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(async () => (await runsOf(evaluator.id)).length, 1);
    expect((await runsOf(evaluator.id))[0]).toMatchObject({ completion: "max_wait", groupSpanCount: 3 });
  });

  it("takes no trace whose spans never match the rule, and spans owe no span run", async () => {
    const { ws, evaluator } = await traceEvaluator();
    const result = await h.app.services.spans.ingestSpans(ws.principal, [span("t-none", "tool", "lookup", "tool", 0)]);
    expect(result.evaluationsQueued).toBe(0);
    expect(await h.app.prisma.groupSchedule.count({ where: { evaluatorId: evaluator.id } })).toBe(0);
    expect(await h.app.prisma.owedEvaluation.count({ where: { evaluatorId: evaluator.id } })).toBe(0);
  });

  it("waits for the span evaluators it depends on, then reads their scores per span", async () => {
    const { ws, evaluator } = await traceEvaluator();
    const pii = await h.app.services.templates.createTemplate(ws.principal, { name: "PII", sourceCode: `def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="pii_free", value="@" not in str(ctx.output))])\n` });
    const piiEvaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "PII", templateId: pii.template.id });
    const reader = await h.app.services.templates.createTemplate(ws.principal, {
      name: "Any PII",
      sourceCode: `def evaluate(ctx):\n    flags = [s.scores.get("PII", {}).get("pii_free") for s in ctx.trace.spans]\n    return EvaluationResult(scores=[Score(name="any_pii", value=False in flags, comment=repr(flags))])\n`,
    });
    await h.app.prisma.evaluator.update({ where: { id: evaluator.id }, data: { templateId: reader.template.id } });
    await h.app.prisma.evaluatorDependency.create({ data: { evaluatorId: evaluator.id, dependsOnId: piiEvaluator.id, position: 0 } });
    clock.offsetMs = 0;
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [
      span("t-deps", "agent", "agent", "agent", 0),
      span("t-deps", "c1", "answer", "chat", 1, { parentSpanId: "agent", input: "hi", output: "write to me at a@b.example" }),
      span("t-deps", "c2", "answer", "chat", 2, { parentSpanId: "agent", input: "hi", output: "no address here" }),
    ]);
    await waitFor(async () => (await runsOf(piiEvaluator.id)).length, 2);
    // A dependency run still owed on one of its spans: the due trace waits (and is due again in 1 s).
    const c1 = ingested.spans.find((x) => x.spanId === "c1")!.id;
    await h.app.prisma.owedEvaluation.create({ data: { targetType: "span", targetId: c1, evaluatorId: piiEvaluator.id, workspaceId: ws.workspace.id } });
    clock.offsetMs = 31_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(async () => ((await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } })).queuedGeneration === null ? 1 : 0), 1);
    const waiting = await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect(waiting.dueAt!.getTime()).toBeGreaterThan(Date.now() + 31_000 - 5_000);
    expect(await runsOf(evaluator.id)).toHaveLength(0);
    // Once it is settled, the trace runs and reads each span's PII score.
    await h.app.prisma.owedEvaluation.deleteMany({ where: { targetId: c1 } });
    clock.offsetMs = 40_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(async () => (await runsOf(evaluator.id)).length, 1);
    const [run] = await runsOf(evaluator.id);
    expect(run).toMatchObject({ outcome: "ok", missingDependencies: [] });
    expect(run!.scores.map((s) => [s.name, s.value, s.comment])).toEqual([["any_pii", true, "[None, False, True]"]]);
  });
  it("runs only when its gate passes on all, or any, of the spans its dependency ran on; a failed gate skips the round and replaces the run", async () => {
    const { ws, evaluator } = await traceEvaluator();
    const pii = await h.app.services.templates.createTemplate(ws.principal, { name: "PII", sourceCode: `def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="pii_free", value="@" not in str(ctx.output))])\n` });
    await h.app.services.evaluators.createEvaluator(ws.principal, { name: "PII", templateId: pii.template.id, spanKind: "chat" });
    // The gate says which spans must pass: required on a trace evaluator, named when missing.
    await expect(h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { dependencies: [{ evaluator: "PII", gate: { score: "pii_free" } }] })).rejects.toMatchObject({
      issues: [{ path: "dependencies[0].gate.spans", message: `a trace evaluator's gate says which spans of the trace must pass "PII"'s score: any or all` }],
    });
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { dependencies: [{ evaluator: "PII", gate: { score: "pii_free", spans: "all" } }] });
    expect(await h.app.prisma.evaluatorDependency.findMany({ where: { evaluatorId: evaluator.id }, select: { gateScore: true, gateSpans: true } })).toEqual([{ gateScore: "pii_free", gateSpans: "all" }]);

    clock.offsetMs = 0;
    // t-clean: both chat spans pass; t-leak: the second leaks an address. The agent span has no PII run (kind agent).
    for (const [traceId, second] of [["t-clean", "no address here"], ["t-leak", "write to me at a@b.example"]] as const) {
      await h.app.services.spans.ingestSpans(ws.principal, [
        span(traceId, "agent", "agent", "agent", 0),
        span(traceId, "c1", "greet", "chat", 1, { parentSpanId: "agent", input: "hi", output: "hello" }),
        span(traceId, "c2", "answer", "chat", 2, { parentSpanId: "agent", input: "hi", output: second }),
      ]);
    }
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id, evaluator: { name: "PII" } } }), 4);
    clock.offsetMs = 31_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(2);
    await waitFor(async () => (await runsOf(evaluator.id)).length, 2);
    const byTrace = async () => Object.fromEntries((await runsOf(evaluator.id)).map((r) => [r.traceId, [r.outcome, r.skipReason, r.scores.map((x) => x.value)]]));
    expect(await byTrace()).toEqual({
      "t-clean": ["ok", null, [3]],
      "t-leak": ["skipped", `gate on "PII" score "pii_free" (all spans): span "answer" (c2) did not pass (value false)`, []],
    });

    // With "any", t-leak passes (c1 is clean). A late clean span re-runs both; the gate's skipped run on t-leak is replaced.
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { dependencies: [{ evaluator: "PII", gate: { score: "pii_free", spans: "any" } }] });
    for (const traceId of ["t-clean", "t-leak"]) await h.app.services.spans.ingestSpans(ws.principal, [span(traceId, "c3", "bye", "chat", 3, { parentSpanId: "agent", input: "bye", output: "bye" })]);
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id, evaluator: { name: "PII" } } }), 6);
    clock.offsetMs = 62_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(2);
    await waitFor(() => h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } }), 2);
    expect(await byTrace()).toEqual({ "t-clean": ["ok", null, [4]], "t-leak": ["ok", null, [4]] });
    // The runs query lists the trace runs beside the span runs, or one kind with `target`.
    const listed = async (target: string | null) => {
      const res = await ws.gql(`query($t: EvaluationTarget) { runs(first: 50, target: $t) { edges { node { traceId sessionId span { spanId } evaluator { name } } } } }`, { t: target });
      expect(res.errors).toBeUndefined();
      return (res.data as { runs: { edges: { node: { traceId: string | null; span: { spanId: string } | null; evaluator: { name: string } } }[] } }).runs.edges.map(({ node }) => `${node.evaluator.name}:${node.traceId ?? "-"}:${node.span?.spanId ?? "-"}`).sort();
    };
    expect(await listed("trace")).toEqual(["Trace size:t-clean:-", "Trace size:t-leak:-"]);
    expect(await listed("span")).toEqual(["PII:-:c1", "PII:-:c1", "PII:-:c2", "PII:-:c2", "PII:-:c3", "PII:-:c3"]);
    expect(await listed(null)).toEqual([...(await listed("span")), ...(await listed("trace"))].sort());
    expect(await listed("session")).toEqual([]);

    // A gate whose dependency ran on none of the spans (a score it never writes is "missing" on each; a dependency with no run is named).
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { dependencies: [{ evaluator: "PII", gate: { score: "no_such_score", spans: "any" } }] });
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-clean", "c4", "again", "chat", 4, { parentSpanId: "agent", input: "x", output: "y" })]);
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id, evaluator: { name: "PII" } } }), 7);
    clock.offsetMs = 93_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(() => h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } }), 3);
    expect((await byTrace())["t-clean"]).toEqual(["skipped", `gate on "PII" score "no_such_score" (any span): none of the 4 spans it ran on passed (first: span "greet" (c1) the score is missing)`, []]);
  });
  it("runs again when a dependency's run on one of its spans changes after it ran (scores posted, then posted again), and not for another trace's", async () => {
    const { ws, evaluator } = await traceEvaluator();
    await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Judge", kind: "external" });
    const reader = await h.app.services.templates.createTemplate(ws.principal, {
      name: "Judged",
      sourceCode: `def evaluate(ctx):\n    vals = [s.scores.get("Judge", {}).get("helpful") for s in ctx.trace.spans]\n    return EvaluationResult(scores=[Score(name="judged", value=len([v for v in vals if v is not None]), comment=repr(vals))])\n`,
    });
    await h.app.prisma.evaluator.update({ where: { id: evaluator.id }, data: { templateId: reader.template.id } });
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { dependencies: [{ evaluator: "Judge" }] });
    clock.offsetMs = 0;
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [
      span("t-judged", "agent", "agent", "agent", 0),
      span("t-judged", "c1", "answer", "chat", 1, { parentSpanId: "agent", input: "hi", output: "hello" }),
      span("t-other", "agent", "agent", "agent", 0),
    ]);
    const c1 = ingested.spans.find((x) => x.traceId === "t-judged" && x.spanId === "c1")!.id;
    const otherAgent = ingested.spans.find((x) => x.traceId === "t-other")!.id;
    clock.offsetMs = 31_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(2);
    await waitFor(async () => (await runsOf(evaluator.id)).length, 2);
    const judged = () => h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id, traceId: "t-judged" }, include: { scores: true } });
    const first = await judged();
    expect([first.scores[0]!.value, first.scores[0]!.comment, first.missingDependencies]).toEqual([0, "[None, None]", ["Judge"]]);
    const scheduleOf = (traceId: string) => h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id, groupKey: traceId } });
    expect(await scheduleOf("t-judged")).toMatchObject({ generation: 1, ranGeneration: 1, dueAt: null, staleSince: null });

    // The judge's scores arrive on c1 after the trace ran: stale, due one quiet period later; t-other is not touched.
    clock.offsetMs = 40_000;
    await h.app.services.dependencies.submitScores(ws.principal, { spanId: c1, evaluator: "Judge", scores: [{ name: "helpful", value: 0.9 }] });
    const stale = await scheduleOf("t-judged");
    expect(stale).toMatchObject({ generation: 2, ranGeneration: 1 });
    expect(stale.staleSince!.getTime() - (Date.now() + 40_000)).toBeLessThanOrEqual(0);
    expect(stale.dueAt!.getTime() - stale.staleSince!.getTime()).toBe(30_000);
    expect(await scheduleOf("t-other")).toMatchObject({ generation: 1, ranGeneration: 1, dueAt: null });
    clock.offsetMs = 71_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(() => h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } }), 1);
    const second = await judged();
    expect([second.scores[0]!.value, second.scores[0]!.comment, second.missingDependencies]).toEqual([1, "[None, 0.9]", []]);
    expect(await h.app.prisma.runHistory.findMany({ where: { evaluatorId: evaluator.id }, select: { id: true, reason: true } })).toEqual([{ id: first.id, reason: "inputs_changed" }]);

    // Posted again: a new run of the judge on c1, so stale again. A post on t-other's span moves t-other's schedule only.
    await h.app.services.dependencies.submitScores(ws.principal, { spanId: c1, evaluator: "Judge", scores: [{ name: "helpful", value: 0.2 }] });
    expect(await scheduleOf("t-judged")).toMatchObject({ generation: 3, ranGeneration: 2 });
    await h.app.services.dependencies.submitScores(ws.principal, { spanId: otherAgent, evaluator: "Judge", scores: [{ name: "helpful", value: 1 }] });
    expect(await scheduleOf("t-judged")).toMatchObject({ generation: 3 });
    expect(await scheduleOf("t-other")).toMatchObject({ generation: 2, ranGeneration: 1 });
  });
});
