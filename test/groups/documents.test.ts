// The documents of a trace and of a session (src/modules/groups/documents.ts, docs/document.md §
// From a trace, § From a session), and their caps (caps.ts). Pure functions: no database.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MAX_TRACE_SPANS } from "../../src/modules/spans/service.js";
import { GROUP_CAP_SPECS, GROUP_CAPS, GroupCapsError, groupCapsSchema, resolveGroupCaps } from "../../src/modules/evaluators/group-caps.js";
import { sessionDocument, traceDocument, type GroupSpan } from "../../src/modules/groups/documents.js";
import { jsonBytes } from "../../src/lib/json-safety.js";

// The agent trace's and the conversation's documents as built here, read by python-lib's tests
// (tests/test_group_documents.py) too: the sandbox's ctx is made of these very documents.
const FIXTURE = JSON.parse(readFileSync(new URL("../fixtures/group-documents.json", import.meta.url), "utf8")) as { trace: unknown; session: unknown };

const at = (time: string) => new Date(`2026-12-03T${time}Z`);

function span(fields: Partial<GroupSpan> & { spanId: string; name: string; startTime: Date }): GroupSpan {
  return { traceId: "t-agent", parentSpanId: null, kind: "other", input: null, output: null, attributes: {}, metadata: {}, endTime: null, ...fields };
}

// A 4-span agent trace: the root (agent), a chat span that asks for a tool, two tool spans.
const root = span({
  spanId: "s-root",
  name: "support-agent",
  kind: "agent",
  input: [{ role: "user", content: "Weather in Paris?" }],
  output: { role: "assistant", content: "18 C and sunny." },
  attributes: { "gen_ai.operation.name": "invoke_agent" },
  metadata: { user: "u-1" },
  startTime: at("10:00:00.000"),
  endTime: at("10:00:04.000"),
});
const chat = span({
  spanId: "s-chat",
  parentSpanId: "s-root",
  name: "plan",
  kind: "chat",
  input: [{ role: "user", content: "Weather in Paris?" }],
  output: { role: "assistant", content: "", tool_calls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
  startTime: at("10:00:00.100"),
  endTime: at("10:00:01.000"),
});
const weather = span({ spanId: "s-weather", parentSpanId: "s-root", name: "get_weather", kind: "tool", input: { city: "Paris" }, output: { c: 18 }, attributes: { "gen_ai.tool.name": "get_weather" }, startTime: at("10:00:01.000"), endTime: at("10:00:02.000") });
const format = span({ spanId: "s-format", parentSpanId: "s-root", name: "format", kind: "tool", input: { c: 18 }, output: "18 C and sunny.", startTime: at("10:00:02.500"), endTime: at("10:00:03.000") });

const rootEntry = {
  name: "support-agent",
  kind: "agent",
  input: [{ role: "user", content: "Weather in Paris?" }],
  output: { role: "assistant", content: "18 C and sunny." },
  attributes: { "gen_ai.operation.name": "invoke_agent" },
  start_time: "2026-12-03T10:00:00.000Z",
  end_time: "2026-12-03T10:00:04.000Z",
  span_id: "s-root",
  parent_span_id: null,
};
const chatEntry = {
  name: "plan",
  kind: "chat",
  input: [{ role: "user", content: "Weather in Paris?" }],
  output: { role: "assistant", content: "", tool_calls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
  attributes: {},
  start_time: "2026-12-03T10:00:00.100Z",
  end_time: "2026-12-03T10:00:01.000Z",
  span_id: "s-chat",
  parent_span_id: "s-root",
};
const weatherEntry = {
  name: "get_weather",
  kind: "tool",
  input: { city: "Paris" },
  output: { c: 18 },
  attributes: { "gen_ai.tool.name": "get_weather" },
  start_time: "2026-12-03T10:00:01.000Z",
  end_time: "2026-12-03T10:00:02.000Z",
  span_id: "s-weather",
  parent_span_id: "s-root",
};
const formatEntry = {
  name: "format",
  kind: "tool",
  input: { c: 18 },
  output: "18 C and sunny.",
  attributes: {},
  start_time: "2026-12-03T10:00:02.500Z",
  end_time: "2026-12-03T10:00:03.000Z",
  span_id: "s-format",
  parent_span_id: "s-root",
};

/** The trace document of the agent trace with `spans` kept, as it must be (keys in order). */
function agentDocument(spans: object[], capped: boolean, extra: Record<string, unknown> = {}) {
  return {
    input: [{ role: "user", content: "Weather in Paris?" }],
    output: { role: "assistant", content: "18 C and sunny." },
    attributes: { "gen_ai.operation.name": "invoke_agent" },
    metadata: { user: "u-1" },
    trace: { trace_id: "t-agent", spans, span_count: 4, capped, ...extra },
    scores: {},
  };
}

/** Equal, keys in the same order too (the document is deterministic down to its JSON text). */
function expectSame(actual: unknown, expected: unknown) {
  expect(actual).toStrictEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

describe("traceDocument", () => {
  it("gives the root's conversation and every span ordered by start, with ids, scores and completion", () => {
    const scores = { "t-agent:s-chat": { "PII check": { pii_free: true } }, "t-agent:s-root": { Tone: { polite: 0.9 } } };
    const document = traceDocument([chat, format, root, weather], GROUP_CAPS, { scores, completion: "quiet_period" });
    expectSame(document, {
      input: [{ role: "user", content: "Weather in Paris?" }],
      output: { role: "assistant", content: "18 C and sunny." },
      attributes: { "gen_ai.operation.name": "invoke_agent" },
      metadata: { user: "u-1" },
      trace: {
        trace_id: "t-agent",
        spans: [
          { ...rootEntry, scores: { Tone: { polite: 0.9 } } },
          { ...chatEntry, scores: { "PII check": { pii_free: true } } },
          { ...weatherEntry, scores: {} },
          { ...formatEntry, scores: {} },
        ],
        span_count: 4,
        capped: false,
        completion: "quiet_period",
      },
      scores: { Tone: { polite: 0.9 } },
    });
    expectSame(document, FIXTURE.trace);
    // Without extras: no per-span scores, no completion.
    expectSame(traceDocument([chat, format, root, weather]), agentDocument([rootEntry, chatEntry, weatherEntry, formatEntry], false));
    // The same spans in another order give the same document.
    expect(JSON.stringify(traceDocument([weather, root, chat, format]))).toBe(JSON.stringify(traceDocument([chat, format, root, weather])));
  });

  it("takes the earliest of two roots, and the earliest span when none is a root", () => {
    const late = span({ spanId: "r-late", name: "late", input: "second question", startTime: at("10:00:02") });
    const early = span({ spanId: "r-early", name: "early", input: "first question", parentSpanId: "", startTime: at("10:00:01") });
    const child = span({ spanId: "c", name: "child", parentSpanId: "r-late", startTime: at("10:00:00") });
    const two = traceDocument([late, child, early]);
    expect(two.input).toStrictEqual("first question");
    expect(two.trace!.spans.map((s) => [s.span_id, s.parent_span_id])).toStrictEqual([["c", "r-late"], ["r-early", null], ["r-late", null]]);
    const orphans = traceDocument([span({ spanId: "b", name: "b", parentSpanId: "x", input: "from b", startTime: at("10:00:05") }), span({ spanId: "a", name: "a", parentSpanId: "x", input: "from a", startTime: at("10:00:03") })]);
    expect([orphans.input, orphans.trace!.spans.map((s) => s.span_id)]).toStrictEqual(["from a", ["a", "b"]]);
  });

  it("at equal starts puts a parent before its children, however they arrived, then keeps arrival order", () => {
    // A child started in its parent's millisecond (the OTel SDK's spans, stored in whole ms).
    const parent = span({ spanId: "p", name: "agent", startTime: at("10:00:00.000") });
    const first = span({ spanId: "c1", name: "tool one", parentSpanId: "p", startTime: at("10:00:00.000") });
    const grandchild = span({ spanId: "g", name: "nested", parentSpanId: "c1", startTime: at("10:00:00.000") });
    const second = span({ spanId: "c2", name: "tool two", parentSpanId: "p", startTime: at("10:00:00.000") });
    const ids = (spans: GroupSpan[]) => traceDocument(spans).trace!.spans.map((s) => s.span_id);
    expect(ids([grandchild, first, second, parent])).toStrictEqual(["p", "c1", "c2", "g"]);
    expect(ids([second, grandchild, parent, first])).toStrictEqual(["p", "c2", "c1", "g"]);
    // A parent cycle (bad data) still ends.
    const loopA = span({ spanId: "a", name: "a", parentSpanId: "b", startTime: at("10:00:01") });
    const loopB = span({ spanId: "b", name: "b", parentSpanId: "a", startTime: at("10:00:01") });
    expect(ids([loopB, loopA])).toStrictEqual(["b", "a"]);
  });

  it("maxSpans keeps the earliest spans (the root always) and says capped", () => {
    const caps = resolveGroupCaps({ maxSpans: 2 });
    expectSame(traceDocument([chat, format, root, weather], caps), agentDocument([rootEntry, chatEntry], true));
    // A root that starts after its children (clock skew) is still kept, with the earliest other span.
    const skewed = { ...root, startTime: at("10:00:00.500") };
    expect(traceDocument([chat, format, skewed, weather], caps).trace!.spans.map((s) => s.span_id)).toStrictEqual(["s-chat", "s-root"]);
    expect(traceDocument([chat, format, root, weather], resolveGroupCaps({ maxSpans: 4 })).trace!.capped).toBe(false);
  });

  it("maxDocumentBytes drops the latest spans, never the root", () => {
    const three = agentDocument([rootEntry, chatEntry, weatherEntry], true);
    const bytes = jsonBytes(three);
    expect(bytes).toBe(Buffer.byteLength(JSON.stringify(three)));
    expectSame(traceDocument([chat, format, root, weather], resolveGroupCaps({ maxDocumentBytes: bytes })), three);
    expectSame(traceDocument([chat, format, root, weather], resolveGroupCaps({ maxDocumentBytes: bytes - 1 })), agentDocument([rootEntry, chatEntry], true));
    // Even 1 byte keeps the root (the document then stays over the cap).
    expectSame(traceDocument([chat, format, root, weather], resolveGroupCaps({ maxDocumentBytes: 1 })), agentDocument([rootEntry], true));
    const whole = agentDocument([rootEntry, chatEntry, weatherEntry, formatEntry], false);
    expectSame(traceDocument([chat, format, root, weather], resolveGroupCaps({ maxDocumentBytes: jsonBytes(whole) })), whole);
  });

  it("refuses an empty trace", () => {
    expect(() => traceDocument([])).toThrow("a trace has at least one span");
  });
});

// A three-turn support conversation in three traces; each trace's root is an agent span with a
// chat span under it, and each call's input repeats the history so far (as chat apps send it).
const U1 = { role: "user", content: "I want to return my shoes." };
const A1 = { role: "assistant", content: "Sure. What is the order number?" };
const U2 = { role: "user", content: "It is 4411." };
const A2 = { role: "assistant", content: "Thanks, a return label is on its way." };
const U3 = { role: "user", content: "How long does the refund take?" };
const A3 = { role: "assistant", content: "5 to 7 business days." };

function turnTrace(n: number, input: object[], output: object, attributes: Record<string, unknown> = {}) {
  const traceId = `t-${n}`;
  const rootSpan = span({ traceId, spanId: `r-${n}`, name: "chat-turn", kind: "agent", input, output, attributes, metadata: { turn: n }, startTime: at(`10:0${n}:00.000`), endTime: at(`10:0${n}:02.000`) });
  const llm = span({ traceId, spanId: `l-${n}`, parentSpanId: `r-${n}`, name: "llm", kind: "chat", input: input.slice(-1), output, startTime: at(`10:0${n}:00.500`), endTime: at(`10:0${n}:01.500`) });
  return [llm, rootSpan];
}

const entry = (n: number, input: object[], output: object, attributes: Record<string, unknown> = {}) => ({
  root: { name: "chat-turn", kind: "agent", input, output, attributes, start_time: `2026-12-03T10:0${n}:00.000Z`, end_time: `2026-12-03T10:0${n}:02.000Z`, span_id: `r-${n}`, parent_span_id: null },
  llm: { name: "llm", kind: "chat", input: input.slice(-1), output, attributes: {}, start_time: `2026-12-03T10:0${n}:00.500Z`, end_time: `2026-12-03T10:0${n}:01.500Z`, span_id: `l-${n}`, parent_span_id: `r-${n}` },
});

describe("sessionDocument", () => {
  const t1 = turnTrace(1, [U1], A1, { "session.id": "sess-9" });
  const t2 = turnTrace(2, [U1, A1, U2], A2);
  const t3 = turnTrace(3, [U1, A1, U2, A2, U3], A3);
  const e1 = entry(1, [U1], A1, { "session.id": "sess-9" });
  const e2 = entry(2, [U1, A1, U2], A2);
  const e3 = entry(3, [U1, A1, U2, A2, U3], A3);

  it("gives the whole conversation once: history each call repeats is not appended again", () => {
    const document = sessionDocument("sess-9", [t2, t3, t1], GROUP_CAPS, { completion: "end_marker" });
    expectSame(document, {
      input: [U1, A1, U2, A2, U3],
      output: A3,
      attributes: { "session.id": "sess-9" },
      metadata: { turn: 1 },
      trace: { trace_id: "t-3", spans: [e3.root, e3.llm], span_count: 2, capped: false },
      session: {
        id: "sess-9",
        traces: [
          { trace_id: "t-1", spans: [e1.root, e1.llm], span_count: 2 },
          { trace_id: "t-2", spans: [e2.root, e2.llm], span_count: 2 },
          { trace_id: "t-3", spans: [e3.root, e3.llm], span_count: 2 },
        ],
        trace_count: 3,
        turn_count: 6,
        capped: false,
        completion: "end_marker",
      },
      scores: {},
    });
    expectSame(document, FIXTURE.session);
  });

  it("appends every turn of calls that send no history, and of calls whose history differs", () => {
    const plain = sessionDocument("s", [turnTrace(1, [U1], A1), turnTrace(2, [U2], A2), turnTrace(3, [U3], A3)]);
    expect([plain.input, plain.output, plain.session!.turn_count]).toStrictEqual([[U1, A1, U2, A2, U3], A3, 6]);
    // The second call's history was edited (not the conversation so far): all its turns are appended.
    const edited = { role: "user", content: "I want to return my boots." };
    const differs = sessionDocument("s", [turnTrace(1, [U1], A1), turnTrace(2, [edited, A1, U2], A2)]);
    expect([differs.input, differs.output]).toStrictEqual([[U1, A1, edited, A1, U2], A2]);
    // A conversation that ends on a user turn: every turn is input, output is null.
    const open = sessionDocument("s", [turnTrace(1, [U1], A1), turnTrace(2, [U1, A1, U2], [])]);
    expect([open.input, open.output]).toStrictEqual([[U1, A1, U2], null]);
  });

  it("maxTurns keeps the latest turns", () => {
    const document = sessionDocument("sess-9", [t1, t2, t3], resolveGroupCaps({ maxTurns: 3 }));
    expect([document.input, document.output, document.session!.turn_count, document.session!.capped, document.trace!.capped]).toStrictEqual([[A2, U3], A3, 6, true, false]);
  });

  it("maxSpans counts spans across traces, the newest traces keeping theirs first", () => {
    const document = sessionDocument("sess-9", [t1, t2, t3], resolveGroupCaps({ maxSpans: 3 }));
    expect(document.session!.traces).toStrictEqual([
      { trace_id: "t-1", spans: [], span_count: 2 },
      { trace_id: "t-2", spans: [e2.root], span_count: 2 },
      { trace_id: "t-3", spans: [e3.root, e3.llm], span_count: 2 },
    ]);
    expect([document.session!.capped, document.trace!.capped, document.input, document.output]).toStrictEqual([true, false, [U1, A1, U2, A2, U3], A3]);
  });

  it("maxDocumentBytes drops the oldest traces' spans first, then the last trace's but its root, then the oldest turns", () => {
    const caps = (maxDocumentBytes: number) => resolveGroupCaps({ maxDocumentBytes });
    const traces = (kept: [object[], object[], object[]]) => kept.map((spans, i) => ({ trace_id: `t-${i + 1}`, spans, span_count: 2 }));
    const shape = (input: object[], kept: [object[], object[], object[]]) => ({
      input,
      output: A3,
      attributes: { "session.id": "sess-9" },
      metadata: { turn: 1 },
      trace: { trace_id: "t-3", spans: kept[2], span_count: 2, capped: kept[2].length < 2 },
      session: { id: "sess-9", traces: traces(kept), trace_count: 3, turn_count: 6, capped: true },
      scores: {},
    });
    // The first trace's chat span dropped (its latest), then its root.
    const lessOne = shape([U1, A1, U2, A2, U3], [[e1.root], [e2.root, e2.llm], [e3.root, e3.llm]]);
    expectSame(sessionDocument("sess-9", [t1, t2, t3], caps(jsonBytes(lessOne))), lessOne);
    const lessTwo = shape([U1, A1, U2, A2, U3], [[], [e2.root, e2.llm], [e3.root, e3.llm]]);
    expectSame(sessionDocument("sess-9", [t1, t2, t3], caps(jsonBytes(lessOne) - 1)), lessTwo);
    // The older traces' spans all gone, then the last trace's chat span, then turns from the oldest.
    const turnsCut = shape([U2, A2, U3], [[], [], [e3.root]]);
    expectSame(sessionDocument("sess-9", [t1, t2, t3], caps(jsonBytes(turnsCut))), turnsCut);
    // 1 byte: the last trace's root and the last turn stay.
    expectSame(sessionDocument("sess-9", [t1, t2, t3], caps(1)), shape([], [[], [], [e3.root]]));
  });

  it("maxDocumentBytes keeps the most that fits, at every byte of the way", () => {
    // Sizes are counted, not encoded, per drop: at each cap the document fits, and it changes
    // only at a cap equal to its own size (the largest of the drop sequence that fits).
    const check = (documentAt: (maxDocumentBytes: number) => object) => {
      const least = jsonBytes(documentAt(1));
      const full = jsonBytes(documentAt(8 * 1024 * 1024));
      let previous = JSON.stringify(documentAt(least));
      let changes = 0;
      for (let max = least; max <= full; max += 1) {
        const document = documentAt(max);
        const text = JSON.stringify(document);
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(max);
        if (text !== previous) {
          expect(Buffer.byteLength(text)).toBe(max);
          changes += 1;
        }
        previous = text;
      }
      return changes;
    };
    // Session: 5 spans and 5 of its 6 turns to drop; trace: 3 spans.
    expect(check((max) => sessionDocument("sess-9", [t1, t2, t3], resolveGroupCaps({ maxDocumentBytes: max })))).toBe(10);
    expect(check((max) => traceDocument([chat, format, root, weather], resolveGroupCaps({ maxDocumentBytes: max })))).toBe(3);
    // A conversation that ends on a user turn (every turn is input) shrinks the same way.
    const open = [turnTrace(1, [U1], A1), turnTrace(2, [U1, A1, U2], [])];
    expect(check((max) => sessionDocument("s", open, resolveGroupCaps({ maxDocumentBytes: max })))).toBe(3 + 2);
  });

  it("gives per-span scores across traces and the last root's scores at the top", () => {
    const scores = { "t-1:l-1": { PII: { pii_free: false } }, "t-3:r-3": { Tone: { polite: 1 } } };
    const document = sessionDocument("sess-9", [t1, t2, t3], GROUP_CAPS, { scores });
    expect(document.session!.traces.map((t) => t.spans.map((s) => s.scores))).toStrictEqual([[{}, { PII: { pii_free: false } }], [{}, {}], [{ Tone: { polite: 1 } }, {}]]);
    expect(document.scores).toStrictEqual({ Tone: { polite: 1 } });
  });

  it("skips empty traces and refuses a session without spans", () => {
    expect(sessionDocument("s", [[], t1]).session!.trace_count).toBe(1);
    expect(() => sessionDocument("s", [[]])).toThrow("a session has at least one trace with a span");
  });
});

describe("group caps", () => {
  it("resolves defaults and what is asked, within the ceilings", () => {
    expect(resolveGroupCaps()).toStrictEqual({ maxSpans: 500, maxTurns: 200, maxDocumentBytes: 1024 * 1024 });
    expect(GROUP_CAPS).toStrictEqual(resolveGroupCaps({}));
    expect(resolveGroupCaps({ maxSpans: 5_000, maxDocumentBytes: 8 * 1024 * 1024 })).toStrictEqual({ maxSpans: 5_000, maxTurns: 200, maxDocumentBytes: 8 * 1024 * 1024 });
  });

  it("refuses a cap above its ceiling, below 1, not whole, or unknown, naming it", () => {
    const refused = (asked: object) => {
      try {
        resolveGroupCaps(asked as never);
      } catch (error) {
        if (error instanceof GroupCapsError) return [error.cap, error.message];
      }
      return null;
    };
    expect(refused({ maxSpans: 5_001 })).toStrictEqual(["maxSpans", "maxSpans: must be at most 5000 spans (its ceiling)"]);
    expect(refused({ maxTurns: 0 })).toStrictEqual(["maxTurns", "maxTurns: must be at least 1 turn"]);
    expect(refused({ maxDocumentBytes: 8 * 1024 * 1024 + 1 })).toStrictEqual(["maxDocumentBytes", "maxDocumentBytes: must be at most 8388608 bytes (8 MiB) (its ceiling)"]);
    expect(refused({ maxSpans: 2.5 })).toStrictEqual(["maxSpans", "maxSpans: must be a whole number"]);
    expect(refused({ maxTurns: "10" })).toStrictEqual(["maxTurns", "maxTurns: must be a whole number"]);
    expect(refused({ maxBytes: 10 })).toStrictEqual(["maxBytes", "unknown cap(s) maxBytes (the caps are maxSpans, maxTurns, maxDocumentBytes)"]);
    expect(groupCapsSchema.safeParse({ maxSpans: 10 }).success).toBe(true);
  });

  it("defaults maxSpans to what a span document's trace holds (MAX_TRACE_SPANS)", () => {
    expect(GROUP_CAP_SPECS.maxSpans.default).toBe(MAX_TRACE_SPANS);
  });

  it("keeps the document ceiling below the sandbox's frame limit", () => {
    const protocol = readFileSync(new URL("../../sandbox/runner_protocol.py", import.meta.url), "utf8");
    const [, a, b, c] = /^MAX_FRAME_BYTES = (\d+) \* (\d+) \* (\d+)$/m.exec(protocol)!;
    expect(Number(a) * Number(b) * Number(c)).toBe(64 * 1024 * 1024);
    expect(GROUP_CAP_SPECS.maxDocumentBytes.ceiling * 2).toBeLessThan(Number(a) * Number(b) * Number(c));
  });
});

describe("trace documents under attack", () => {
  it("attack: a deep chain of spans: ordering ties by depth walks each span's ancestors anew (quadratic in the depth), not once per span", () => {
    // Parent reads are counted with a getter: a chain of N spans must cost O(N) of them, not N²/2.
    const n = 2_000;
    let reads = 0;
    const spans: GroupSpan[] = [];
    for (let i = 0; i < n; i += 1) {
      const parent = i === 0 ? null : `c${i - 1}`;
      const s = span({ spanId: `c${i}`, name: `c${i}`, startTime: at("10:00:00.000") });
      Object.defineProperty(s, "parentSpanId", { get: () => ((reads += 1), parent), enumerable: true });
      spans.push(s);
    }
    const document = traceDocument([...spans].reverse(), { ...GROUP_CAPS, maxSpans: n }) as { trace: { spans: { span_id: string }[] } };
    // All start at once: parents before children, so the chain in order.
    expect(document.trace.spans.map((s) => s.span_id)).toEqual(spans.map((s) => s.spanId));
    expect(reads).toBeLessThan(20 * n);
  });
});
