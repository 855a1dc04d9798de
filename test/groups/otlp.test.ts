// Trace and session evaluators fed by real OTLP spans (issue 29, "done when"): the OpenTelemetry JS
// SDK's exporter sends an agent trace with tool spans and a three-turn conversation (three traces
// sharing gen_ai.conversation.id) to the service on a real port. The clock of arrivals and of the
// due poller is moved by the test, so no test waits for a quiet period.
import { context, SpanKind, trace, type Span as OtelSpan } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/lib/clock.js";
import { liveHarness, waitFor } from "../runs/helpers.js";
import { listen } from "../otlp/helpers.js";
import { OPIK_THREAD_EXAMPLE } from "../fixtures/opik-examples.js";
import { SESSION_SOURCE, TRACE_SOURCE } from "../fixtures/group-sources.js";

const clock: Clock & { offsetMs: number } = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };

let h: Awaited<ReturnType<typeof liveHarness>>;
let service: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  h = await liveHarness({ label: "groups-otlp", clock });
  service = await listen(h.client.yoga as never);
});
afterAll(async () => {
  await service?.close();
  await h?.close();
});

async function evaluator(ws: Awaited<ReturnType<typeof h.workspace>>, name: string, source: string, target: "trace" | "session", spanKind: string, groupSettings: Record<string, number | boolean> = {}) {
  const { template } = await h.app.services.templates.createTemplate(ws.principal, { name, sourceCode: source });
  const created = await h.app.services.evaluators.createEvaluator(ws.principal, { name, templateId: template.id, spanKind });
  return h.app.prisma.evaluator.update({ where: { id: created.id }, data: { target, groupSettings } });
}

/** A tracer whose every ended span is exported to the service at once (OTLP/HTTP protobuf). */
function tracerFor(key: string) {
  const exporter = new OTLPTraceExporter({ url: `${service.url}/v1/traces`, headers: { authorization: `Bearer ${key}` } });
  const provider = new TracerProvider({ resource: resourceFromAttributes({ "service.name": "support-agent" }), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { tracer: provider.getTracer("support-agent", "1.0.0"), flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}

const hexTrace = (span: OtelSpan) => span.spanContext().traceId;
const runsOf = (evaluatorId: string) => h.app.prisma.run.findMany({ where: { evaluatorId }, include: { scores: { orderBy: { position: "asc" } } } });


describe("trace and session evaluators on OTLP spans", () => {
  it("runs a trace evaluator after the quiet period on every span, again with history after a late span, at once on an end marker, and at the maximum wait", async () => {
    const ws = await h.workspace();
    const quiet = await evaluator(ws, "Agent trace", TRACE_SOURCE, "trace", "agent");
    const sdk = tracerFor(ws.secret);
    clock.offsetMs = 0;
    // The first tool starts in the root's millisecond (a parent comes first at equal starts), the
    // second 5 ms later: explicit times, so the order does not depend on the machine's speed.
    const startedAt = Date.now();
    const root = sdk.tracer.startSpan("invoke_agent support", { kind: SpanKind.INTERNAL, startTime: startedAt, attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support" } });
    const parent = trace.setSpan(context.active(), root);
    for (const [i, tool] of ["lookup_order", "create_refund"].entries()) {
      sdk.tracer.startSpan(`execute_tool ${tool}`, { kind: SpanKind.INTERNAL, startTime: startedAt + 5 * i, attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool } }, parent).end();
    }
    root.end();
    await sdk.flush();
    const traceId = hexTrace(root);
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id, traceId } })).toBe(3);

    // Not before the quiet period (30 s by default); once after it.
    clock.offsetMs = 29_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(0);
    clock.offsetMs = 31_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(async () => (await runsOf(quiet.id)).length, 1);
    const [first] = await runsOf(quiet.id);
    expect(first).toMatchObject({ outcome: "ok", traceId, completion: "quiet_period", groupSpanCount: 3 });
    expect(first!.scores.map((s) => [s.value, s.comment])).toEqual([[3, "agent:invoke_agent support,tool:execute_tool lookup_order,tool:execute_tool create_refund"]]);

    // A late tool span: the trace runs again after the next quiet period, the first run kept as history.
    sdk.tracer.startSpan("execute_tool send_email", { kind: SpanKind.INTERNAL, attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_email" } }, parent).end();
    await sdk.flush();
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(0);
    clock.offsetMs = 62_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(() => h.app.prisma.runHistory.count({ where: { evaluatorId: quiet.id } }), 1);
    const [second] = await runsOf(quiet.id);
    expect(second).toMatchObject({ traceId, completion: "quiet_period", groupSpanCount: 4 });
    expect(second!.scores[0]!.value).toBe(4);
    expect(await h.app.prisma.runHistory.findMany({ where: { evaluatorId: quiet.id }, select: { id: true, reason: true, groupSpanCount: true } })).toEqual([{ id: first!.id, reason: "group_changed", groupSpanCount: 3 }]);
    // tryCode on the stored trace gives the live run's score.
    const tried = await h.app.services.tryCode.tryCode(ws.principal, { templateId: quiet.templateId, traceId });
    expect(tried.scores.map((s) => [s.value, s.comment])).toEqual(second!.scores.map((s) => [s.value, s.comment]));

    // An end marker on the root: at once, without the quiet period.
    const marked = sdk.tracer.startSpan("invoke_agent billing", { attributes: { "gen_ai.operation.name": "invoke_agent", "oodle.trace.end": true } });
    marked.end();
    await sdk.flush();
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(async () => (await runsOf(quiet.id)).length, 2);
    expect((await runsOf(quiet.id)).find((r) => r.traceId === hexTrace(marked))).toMatchObject({ completion: "end_marker", groupSpanCount: 1 });

    // A trace whose tool spans keep coming every 25 s runs at the maximum wait (60 s after the
    // first), on what has arrived (its root is still open, so never exported).
    const waiting = await evaluator(ws, "Tool steps", TRACE_SOURCE, "trace", "tool", { quietPeriodMs: 30_000, maxWaitMs: 60_000 });
    const long = sdk.tracer.startSpan("invoke_agent research", { attributes: { "gen_ai.operation.name": "invoke_agent" } });
    const longParent = trace.setSpan(context.active(), long);
    for (const at of [100_000, 125_000, 150_000]) {
      clock.offsetMs = at;
      sdk.tracer.startSpan("execute_tool search", { attributes: { "gen_ai.operation.name": "execute_tool" } }, longParent).end();
      await sdk.flush();
      expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(0);
    }
    clock.offsetMs = 161_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(async () => (await runsOf(waiting.id)).filter((r) => r.traceId === hexTrace(long)).length, 1);
    expect((await runsOf(waiting.id)).find((r) => r.traceId === hexTrace(long))).toMatchObject({ completion: "max_wait", groupSpanCount: 3 });
    await sdk.shutdown();
  });

  it("runs a session evaluator on all three turns of a conversation across its traces, and Opik's ConversationThreadMetric on it unchanged", async () => {
    const ws = await h.workspace();
    const session = await evaluator(ws, "Conversation turns", SESSION_SOURCE, "session", "chat");
    const opik = await evaluator(ws, "Conversation length", OPIK_THREAD_EXAMPLE, "session", "chat");
    const sdk = tracerFor(ws.secret);
    clock.offsetMs = 0;
    // Each call of the chat app sends the history so far and gets one reply: one trace per turn.
    const turns = [
      ["My order 1042 arrived broken.", "Sorry! Shall I refund it?"],
      ["Yes please.", "Done: the refund is on its way."],
      ["How long will it take?", "Three to five working days."],
    ];
    const history: { role: string; parts: { type: string; content: string }[] }[] = [];
    for (const [question, answer] of turns) {
      history.push({ role: "user", parts: [{ type: "text", content: question! }] });
      const span = sdk.tracer.startSpan("chat gpt-4o-mini", {
        kind: SpanKind.CLIENT,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.conversation.id": "conv-1042",
          "gen_ai.input.messages": JSON.stringify(history),
          "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: answer }] }]),
        },
      });
      span.end();
      history.push({ role: "assistant", parts: [{ type: "text", content: answer! }] });
      await sdk.flush();
      clock.offsetMs += 60_000;
    }
    await sdk.shutdown();
    const schedules = await h.app.prisma.groupSchedule.findMany({ where: { workspaceId: ws.workspace.id } });
    expect(schedules.map((s) => [s.targetType, s.groupKey, s.spanCount, s.traceIds.length])).toEqual([
      ["session", "conv-1042", 3, 3],
      ["session", "conv-1042", 3, 3],
    ]);
    // 15 minutes after the last turn (the session default).
    clock.offsetMs = 120_000 + 15 * 60_000 + 1_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(2);
    await waitFor(async () => (await runsOf(session.id)).length + (await runsOf(opik.id)).length, 2);
    const [run] = await runsOf(session.id);
    expect(run).toMatchObject({ outcome: "ok", sessionId: "conv-1042", completion: "quiet_period", groupSpanCount: 3, documentCapped: false });
    expect(run!.scores.map((s) => [s.name, s.value, s.comment])).toEqual([
      ["turns", 6, "user: My order 1042 arrived broken. | assistant: Sorry! Shall I refund it? | user: Yes please. | assistant: Done: the refund is on its way. | user: How long will it take? | assistant: Three to five working days."],
      ["traces", 3, null],
    ]);
    const [opikRun] = await runsOf(opik.id);
    expect(opikRun).toMatchObject({ outcome: "ok", sessionId: "conv-1042" });
    expect(opikRun!.scores.map((s) => [s.name, s.value, s.comment])).toEqual([["conversation_length_score", 3, "Conversation has 3 turns"]]);
    // tryCode on the stored session gives the live runs' scores.
    for (const [e, live] of [[session, run!], [opik, opikRun!]] as const) {
      const tried = await h.app.services.tryCode.tryCode(ws.principal, { templateId: e.templateId, sessionId: "conv-1042" });
      expect(tried.scores.map((s) => [s.name, s.value, s.comment])).toEqual(live.scores.map((s) => [s.name, s.value, s.comment]));
    }
    await expect(h.app.services.tryCode.tryCode(ws.principal, { templateId: session.templateId, sessionId: "no-such-session" })).rejects.toThrow(/session.*no-such-session/);
  });
});
