import { describe, expect, it } from "vitest";
import { settingsOf } from "../../src/modules/evaluators/group-settings.js";
import { itemDocumentFor, itemSessionDocument, itemTraceDocument } from "../../src/modules/experiments/group-document.js";
import { itemToDocument } from "../../src/modules/experiments/document.js";

// The documents of a dataset item for trace and session evaluators (pure; the experiment test,
// test/experiments/groups.test.ts, runs them against tryCode on stored spans).
const item = { id: "item-1", input: null, output: null, expectedOutput: null, context: null, toolCalls: null, traceSpans: null, metadata: {} };
const traceSettings = settingsOf("trace", {});
const sessionSettings = settingsOf("session", {});

describe("item documents of trace and session evaluators", () => {
  it("a span evaluator's is itemToDocument's", () => {
    const given = { ...item, input: "q", output: "a", toolCalls: [{ name: "search", arguments: { q: 1 } }] };
    expect(itemDocumentFor("span", null, given, { Dep: { ok: true } })).toEqual(itemToDocument(given, { Dep: { ok: true } }));
  });

  it("a trace document: the item's input, output, context and metadata over the root's; span ids; numbers as epoch seconds; no trace id is null", () => {
    const doc = itemTraceDocument(
      {
        ...item,
        output: "the item's reply",
        context: "ctx",
        expectedOutput: "ref",
        metadata: { split: "test" },
        traceSpans: [
          { name: "tool", kind: "tool", span_id: "b", parent_span_id: "a", start_time: 1_764_756_001, input: { q: 1 } },
          { name: "agent", kind: "agent", span_id: "a", start_time: 1_764_756_000, input: "root q", output: "root a", attributes: { x: 1 }, metadata: { app: "s" } },
        ],
      },
      traceSettings,
    );
    expect(doc).toEqual({
      input: "root q",
      output: "the item's reply",
      attributes: { x: 1, context: "ctx" },
      metadata: { app: "s", split: "test" },
      trace: {
        trace_id: null,
        spans: [
          { name: "agent", kind: "agent", input: "root q", output: "root a", attributes: { x: 1 }, start_time: "2025-12-03T10:00:00.000Z", end_time: null, span_id: "a", parent_span_id: null },
          { name: "tool", kind: "tool", input: { q: 1 }, output: null, attributes: {}, start_time: "2025-12-03T10:00:01.000Z", end_time: null, span_id: "b", parent_span_id: "a" },
        ],
        span_count: 2,
        capped: false,
      },
      scores: {},
      expected_output: "ref",
    });
  });

  it("with dependencies: `scores` is the item's, each span's `scores` is {}; an item without a trace keeps its tool-call spans", () => {
    const deps = { Safe: { safe: true } };
    const withTrace = itemTraceDocument({ ...item, traceSpans: [{ name: "a", span_id: "1", trace_id: "t" }, { name: "b", span_id: "2", parent_span_id: "1", trace_id: "t" }] }, traceSettings, deps);
    expect(withTrace.scores).toEqual(deps);
    expect((withTrace.trace as { trace_id: string; spans: { scores: unknown }[] }).spans.map((s) => s.scores)).toEqual([{}, {}]);
    expect((withTrace.trace as { trace_id: string }).trace_id).toBe("t");
    const noTrace = itemTraceDocument({ ...item, toolCalls: [{ name: "search", arguments: { q: 1 } }] }, traceSettings, deps);
    expect(noTrace.trace).toEqual({ trace_id: null, spans: [{ name: "search", kind: "tool", input: { q: 1 }, output: null, attributes: { "gen_ai.tool.name": "search" }, scores: {} }], span_count: 1, capped: false });
    expect(noTrace.scores).toEqual(deps);
  });

  it("a session document: traces by trace_id in start order, turns deduped, the session key of the evaluator, caps", () => {
    const chat = (trace: string, start: string, input: { role: string; content: string }[], output: string) => ({ name: "chat", kind: "chat", trace_id: trace, span_id: "s", start_time: start, input, output, attributes: { "app.conv": "c-9" } });
    const traceSpans = [
      chat("t2", "2026-12-03T10:01:00Z", [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "user", content: "bye" }], "ciao"),
      chat("t1", "2026-12-03T10:00:00Z", [{ role: "user", content: "hi" }], "hello"),
    ];
    const doc = itemSessionDocument({ ...item, traceSpans }, settingsOf("session", { sessionKeyAttribute: "app.conv", maxTurns: 3 }));
    expect(doc.input).toEqual([{ role: "assistant", content: "hello" }, { role: "user", content: "bye" }]);
    expect(doc.output).toEqual({ role: "assistant", content: "ciao" });
    expect(doc.session).toMatchObject({ id: "c-9", trace_count: 2, turn_count: 4, capped: true });
    expect((doc.session as { traces: { trace_id: string }[] }).traces.map((t) => t.trace_id)).toEqual(["t1", "t2"]);
    // Without the evaluator's key on the spans, the item's id.
    expect((itemSessionDocument({ ...item, traceSpans }, sessionSettings).session as { id: string }).id).toBe("item-1");
  });

  it("an item holding only a conversation is one trace of one chat span (its tool calls as child tool spans)", () => {
    const doc = itemSessionDocument({ ...item, input: "2+2?", output: "4", toolCalls: [{ name: "calc", arguments: { e: "2+2" } }], expectedOutput: "4", context: "math" }, sessionSettings);
    expect(doc).toMatchObject({ input: [{ role: "user", content: "2+2?" }], output: { role: "assistant", content: "4" }, attributes: { context: "math" }, expected_output: "4", scores: {} });
    const session = doc.session as { id: string; traces: { trace_id: string | null; spans: { name: string; kind: string; span_id: string; parent_span_id: string | null }[] }[]; turn_count: number };
    expect(session.id).toBe("item-1");
    expect(session.turn_count).toBe(2);
    expect(session.traces.map((t) => [t.trace_id, t.spans.map((s) => [s.kind, s.name, s.span_id, s.parent_span_id])])).toEqual([[null, [["chat", "chat", "0", null], ["tool", "calc", "1", "0"]]]]);
  });
});
