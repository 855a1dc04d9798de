// Trace and session evaluators in experiments (issue 29, "experiments over dataset items that hold
// a conversation or a trace"): an item holding the spans of a stored trace or session gives the
// scores tryCode gives on those stored spans (the live group document), caps included; an item
// holding only a conversation is a session of one trace.
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import type { Span } from "../../src/generated/prisma/client.js";
import type { Principal } from "../../src/lib/principal.js";
import type { Workers } from "../../src/worker.js";
import { SESSION_SOURCE, TRACE_SOURCE } from "../fixtures/group-sources.js";
import { OPIK_THREAD_EXAMPLE } from "../fixtures/opik-examples.js";
import { createExperimentApp, principalOf, startExperimentWorker, waitForExperiment } from "./helpers.js";

/** What the code sees of its document, as JSON: any difference between two documents shows. */
const SHAPE_SOURCE = `
import json

def evaluate(ctx):
    def spans(t):
        return [[s.span_id, s.parent_span_id, s.kind, s.name, s.start_time, s.end_time, s.input, s.output, s.get("scores")] for s in t.spans]
    session = ctx.session
    shape = {
        "input": ctx.input, "output": ctx.output, "turns": ctx.turns, "attributes": ctx.attributes,
        "metadata": ctx.metadata, "expected": ctx.expected_output,
        "trace": [ctx.trace.trace_id, ctx.trace.span_count, ctx.trace.capped, spans(ctx.trace)],
        "session": None if session is None else [session.id, session.trace_count, session.turn_count, session.capped,
                                                 [[t.trace_id, t.span_count, spans(t)] for t in session.traces]],
    }
    return EvaluationResult(scores=[Score(name="shape", value=session.id if session else ctx.trace.trace_id, comment=json.dumps(shape, sort_keys=True, default=str))])
`;

let app: App;
let workers: Workers;
beforeAll(async () => {
  app = createExperimentApp().app;
  workers = await startExperimentWorker(app);
});
afterAll(async () => {
  await workers?.close();
  await app?.close();
});

/** A trace or session evaluator of `source` with `groupSettings`. */
async function groupEvaluator(principal: Principal, name: string, source: string, target: "trace" | "session", groupSettings: Record<string, number> = {}) {
  const { template } = await app.services.templates.createTemplate(principal, { name, sourceCode: source });
  const created = await app.services.evaluators.createEvaluator(principal, { name, templateId: template.id });
  return app.prisma.evaluator.update({ where: { id: created.id }, data: { target, groupSettings } });
}

/** A stored span as a span of an items.jsonl line's trace (what exporting it to a dataset writes). */
function exported(span: Span): Record<string, unknown> {
  return {
    name: span.name, kind: span.kind, input: span.input, output: span.output, attributes: span.attributes, metadata: span.metadata,
    start_time: span.startTime.toISOString(), end_time: span.endTime?.toISOString() ?? null,
    span_id: span.spanId, parent_span_id: span.parentSpanId, trace_id: span.traceId,
  };
}

/** Imports the lines as a dataset, runs the evaluators over it; @returns the items (by position) and each (item, evaluator)'s scores. */
async function experimentOver(principal: Principal, name: string, lines: Record<string, unknown>[], evaluatorIds: string[]) {
  const report = await app.services.datasets.importItems(principal, { name }, Readable.from([lines.map((l) => JSON.stringify(l)).join("\n") + "\n"]));
  expect(report).toMatchObject({ imported: lines.length, badLineCount: 0 });
  const experiment = await app.services.experiments.createExperiment(principal, { datasetId: report.datasetId, name, evaluatorIds });
  expect((await waitForExperiment(app, experiment.id)).status).toBe("completed");
  const runs = await app.prisma.run.findMany({ where: { experimentId: experiment.id }, include: { scores: { orderBy: { position: "asc" } } } });
  expect(runs.map((r) => [r.outcome, r.errorMessage])).toEqual(runs.map(() => ["ok", null]));
  const items = await app.prisma.datasetItem.findMany({ where: { datasetId: report.datasetId }, orderBy: { position: "asc" } });
  const scores = (itemId: string, evaluatorId: string) => runs.find((r) => r.datasetItemId === itemId && r.evaluatorId === evaluatorId)!.scores.map((s) => [s.name, s.value, s.comment]);
  return { items, scores };
}

const tried = async (principal: Principal, templateId: string, sample: Record<string, unknown>) =>
  (await app.services.tryCode.tryCode(principal, { templateId, ...sample })).scores.map((s) => [s.name, s.value, s.comment]);

const at = (s: number) => new Date(Date.parse("2026-12-03T10:00:00.000Z") + s * 1000).toISOString();

describe("trace and session evaluators over dataset items", () => {
  it("scores an item holding a stored three-turn conversation (three traces) as tryCode scores the stored session", async () => {
    const { principal } = await principalOf(app, "exp-session");
    // Each call of the chat app sends the history so far and gets one reply: one trace per turn.
    const turns = [
      ["My order 1042 arrived broken.", "Sorry! Shall I refund it?"],
      ["Yes please.", "Done: the refund is on its way."],
      ["How long will it take?", "Three to five working days."],
    ];
    const history: { role: string; parts: { type: string; content: string }[] }[] = [];
    const spans = turns.map(([question, answer], i) => {
      history.push({ role: "user", parts: [{ type: "text", content: question! }] });
      const attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": "conv-1042",
        "gen_ai.input.messages": JSON.stringify(history),
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: answer }] }]),
      };
      history.push({ role: "assistant", parts: [{ type: "text", content: answer! }] });
      return { traceId: `turn-${i + 1}`, spanId: "chat", name: "chat gpt-4o-mini", kind: "chat", startTime: at(60 * i), endTime: at(60 * i + 2), attributes };
    });
    await app.services.spans.ingestSpans(principal, spans);
    const stored = await app.prisma.span.findMany({ where: { workspaceId: principal.workspaceId }, orderBy: { startTime: "asc" } });
    expect(stored).toHaveLength(3);

    const session = await groupEvaluator(principal, "Conversation turns", SESSION_SOURCE, "session");
    const opik = await groupEvaluator(principal, "Conversation length", OPIK_THREAD_EXAMPLE, "session");
    const shape = await groupEvaluator(principal, "Session shape", SHAPE_SOURCE, "session");
    // Exported newest first: the document orders the traces by their spans' start, as live.
    const { items, scores } = await experimentOver(principal, "conversation-1042", [{ id: "c-1042", trace: { spans: stored.reverse().map(exported) } }], [session.id, opik.id, shape.id]);
    const item = items[0]!;

    expect(scores(item.id, session.id)).toEqual([
      ["turns", 6, "user: My order 1042 arrived broken. | assistant: Sorry! Shall I refund it? | user: Yes please. | assistant: Done: the refund is on its way. | user: How long will it take? | assistant: Three to five working days."],
      ["traces", 3, null],
    ]);
    expect(scores(item.id, opik.id)).toEqual([["conversation_length_score", 3, "Conversation has 3 turns"]]);
    // The session id is the spans' session key, as live.
    expect(scores(item.id, shape.id)[0]!.slice(0, 2)).toEqual(["shape", "conv-1042"]);
    for (const e of [session, opik, shape]) expect(scores(item.id, e.id)).toEqual(await tried(principal, e.templateId!, { sessionId: "conv-1042" }));
  });

  it("scores an item holding a stored agent trace as tryCode scores the stored trace, with the evaluator's caps", async () => {
    const { principal } = await principalOf(app, "exp-trace");
    await app.services.spans.ingestSpans(principal, [
      { traceId: "agent-7", spanId: "root", name: "invoke_agent support", kind: "agent", startTime: at(0), endTime: at(9), input: [{ role: "user", content: "Refund order 7" }], output: "Refunded.", metadata: { app: "support" } },
      { traceId: "agent-7", spanId: "t1", parentSpanId: "root", name: "execute_tool lookup_order", kind: "tool", startTime: at(1), endTime: at(2), input: { order: 7 }, output: { total: 30 }, attributes: { "gen_ai.tool.name": "lookup_order" } },
      { traceId: "agent-7", spanId: "t2", parentSpanId: "root", name: "execute_tool create_refund", kind: "tool", startTime: at(3), endTime: at(4), input: { order: 7 }, output: "ok", attributes: { "gen_ai.tool.name": "create_refund" } },
    ]);
    const stored = await app.prisma.span.findMany({ where: { workspaceId: principal.workspaceId }, orderBy: { startTime: "asc" } });
    const trace = await groupEvaluator(principal, "Agent trace", TRACE_SOURCE, "trace");
    const capped = await groupEvaluator(principal, "Agent trace, 2 spans", TRACE_SOURCE, "trace", { maxSpans: 2 });
    const shape = await groupEvaluator(principal, "Trace shape", SHAPE_SOURCE, "trace");
    const { items, scores } = await experimentOver(principal, "agent-7", [{ id: "a-7", trace: stored.map(exported) }], [trace.id, capped.id, shape.id]);
    const item = items[0]!;

    expect(scores(item.id, trace.id)).toEqual([["spans", 3, "agent:invoke_agent support,tool:execute_tool lookup_order,tool:execute_tool create_refund"]]);
    expect(scores(item.id, capped.id)).toEqual([["spans", 2, "agent:invoke_agent support,tool:execute_tool lookup_order"]]);
    expect(scores(item.id, trace.id)).toEqual(await tried(principal, trace.templateId!, { traceId: "agent-7" }));
    expect(scores(item.id, capped.id)).toEqual(await tried(principal, capped.templateId!, { traceId: "agent-7", groupSettings: { maxSpans: 2 } }));
    // tryCode on the same item, inline or stored, as a trace evaluator sees it (target trace), caps included.
    const line = { id: "a-7", trace: stored.map(exported) };
    expect(await tried(principal, trace.templateId!, { document: line, target: "trace" })).toEqual(scores(item.id, trace.id));
    expect(await tried(principal, capped.templateId!, { datasetItemId: item.id, target: "trace", groupSettings: { maxSpans: 2 } })).toEqual(scores(item.id, capped.id));
    await expect(app.services.tryCode.tryCode(principal, { templateId: trace.templateId!, spanId: stored[0]!.id, target: "trace" })).rejects.toMatchObject({ issues: [{ path: "target", message: "only with document or datasetItemId (a stored trace or session is given by traceId or sessionId)" }] });
    await expect(app.services.tryCode.tryCode(principal, { templateId: trace.templateId!, traceId: "agent-7", target: "session" })).rejects.toMatchObject({ issues: [{ path: "target", message: "a traceId sample is a trace: target must be trace or absent" }] });
    await expect(app.services.tryCode.tryCode(principal, { templateId: trace.templateId!, document: line, groupSettings: { maxSpans: 2 } })).rejects.toMatchObject({ issues: [{ path: "groupSettings", message: "only with traceId or sessionId, or target trace or session" }] });
    const shaped = scores(item.id, shape.id);
    expect(shaped).toEqual(await tried(principal, shape.templateId!, { traceId: "agent-7" }));
    const seen = JSON.parse(shaped[0]![2] as string) as Record<string, unknown>;
    expect(seen).toMatchObject({ input: [{ role: "user", content: "Refund order 7" }], output: "Refunded.", metadata: { app: "support" }, session: null });
    expect(seen.trace).toEqual(["agent-7", 3, false, [
      ["root", null, "agent", "invoke_agent support", at(0), at(9), [{ role: "user", content: "Refund order 7" }], "Refunded.", null],
      ["t1", "root", "tool", "execute_tool lookup_order", at(1), at(2), { order: 7 }, { total: 30 }, null],
      ["t2", "root", "tool", "execute_tool create_refund", at(3), at(4), { order: 7 }, "ok", null],
    ]]);
  });

  it("runs a session evaluator on an item holding only a conversation: one trace, its turns", async () => {
    const { principal } = await principalOf(app, "exp-chat");
    const session = await groupEvaluator(principal, "Conversation turns", SESSION_SOURCE, "session");
    const shape = await groupEvaluator(principal, "Session shape", SHAPE_SOURCE, "session");
    const line = {
      id: "chat-1",
      input: [{ role: "user", content: "Is 17 prime?" }, { role: "assistant", content: "Yes." }, { role: "user", content: "And 21?" }],
      output: "No: 21 = 3 × 7.",
      context: "Primes below 30: 2 3 5 7 11 13 17 19 23 29",
      expected_output: "No",
    };
    const { items, scores } = await experimentOver(principal, "chat-only", [line], [session.id, shape.id]);
    const item = items[0]!;
    expect(scores(item.id, session.id)).toEqual([
      ["turns", 4, "user: Is 17 prime? | assistant: Yes. | user: And 21? | assistant: No: 21 = 3 × 7."],
      ["traces", 1, null],
    ]);
    // tryCode on the stored item as a session evaluator (the same document), and on the inline line (its id is the session id).
    for (const e of [session, shape]) expect(await tried(principal, e.templateId!, { datasetItemId: item.id, target: "session" })).toEqual(scores(item.id, e.id));
    expect(await tried(principal, session.templateId!, { document: line, target: "session" })).toEqual(scores(item.id, session.id));
    expect((await tried(principal, shape.templateId!, { document: line, target: "session" }))[0]!.slice(0, 2)).toEqual(["shape", "chat-1"]);
    const [, id, comment] = scores(item.id, shape.id)[0] as [string, unknown, string];
    expect(id).toBe(item.id);
    expect(JSON.parse(comment)).toEqual({
      input: line.input,
      output: { role: "assistant", content: "No: 21 = 3 × 7." },
      turns: [...line.input, { role: "assistant", content: "No: 21 = 3 × 7." }],
      attributes: { context: line.context },
      metadata: {},
      expected: "No",
      trace: [null, 1, false, [["0", null, "chat", "chat", null, null, line.input, "No: 21 = 3 × 7.", null]]],
      session: [item.id, 1, 4, false, [[null, 1, [["0", null, "chat", "chat", null, null, line.input, "No: 21 = 3 × 7.", null]]]]],
    });
  });
});
