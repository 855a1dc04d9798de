// spanToDocument and the span input rules: the sample document (docs/document.md § From a span) from
// the OpenAI shape, OTel GenAI attributes and OpenLLMetry keys; tool calls; the execution record.
import { describe, expect, it } from "vitest";
import { toolCallsOf, turnsOf } from "../../src/modules/spans/conversation.js";
import { spanToDocument } from "../../src/modules/spans/document.js";
import { conversationInput, conversationOutput } from "../../src/modules/spans/genai.js";
import { normaliseSpan } from "../../src/modules/spans/schemas.js";
import { capText, numericValueOf, runColumns } from "../../src/modules/evaluation/record.js";

const base = { name: "chat", kind: "chat", metadata: {}, startTime: new Date("2026-01-01T00:00:00Z"), endTime: null };

describe("spanToDocument", () => {
  it("keeps an OpenAI-shaped span's input and output, attributes and metadata; no expected_output on a live span", () => {
    const span = {
      ...base,
      input: [{ role: "system", content: "Be brief." }, { role: "user", content: "Refund?" }],
      output: { role: "assistant", content: "Yes.", tool_calls: [{ id: "c1", type: "function", function: { name: "issue_refund", arguments: '{"order": 7}' } }] },
      attributes: { "gen_ai.request.model": "gpt-4o", "app.team": "support" },
      metadata: { user: "u1" },
    };
    const doc = spanToDocument(span, [span]);
    expect(doc).toEqual({
      input: span.input,
      output: span.output,
      attributes: span.attributes,
      metadata: { user: "u1" },
      trace: { spans: [{ name: "chat", kind: "chat", input: span.input, output: span.output, attributes: span.attributes, start_time: "2026-01-01T00:00:00.000Z", end_time: null }] },
      scores: {},
    });
    expect("expected_output" in doc).toBe(false);
    expect(turnsOf(doc.input, doc.output)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Refund?" },
      { role: "assistant", content: "Yes." },
    ]);
    expect(toolCallsOf(doc.output)).toEqual([{ name: "issue_refund", arguments: { order: 7 } }]);
  });

  it("reads the OTel GenAI attributes (JSON strings) when the span has no input/output, system instructions first", () => {
    const input = [{ role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] }];
    const output = [{ role: "assistant", parts: [{ type: "text", content: "Let me check." }, { type: "tool_call", id: "t1", name: "get_weather", arguments: { city: "Paris" } }], finish_reason: "tool_call" }];
    const span = {
      ...base,
      input: null,
      output: null,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": JSON.stringify(input),
        "gen_ai.output.messages": JSON.stringify(output),
        "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "You are a weather bot." }]),
      },
    };
    const doc = spanToDocument(span);
    expect(doc.input).toEqual([{ role: "system", parts: [{ type: "text", content: "You are a weather bot." }] }, ...input]);
    expect(doc.output).toEqual(output);
    expect(turnsOf(doc.input, doc.output).map((t) => t.content)).toEqual(["You are a weather bot.", "Weather in Paris?", "Let me check."]);
    expect(toolCallsOf(doc.output)).toEqual([{ name: "get_weather", arguments: { city: "Paris" } }]);
    // structured (not stringified) attributes work the same
    expect(conversationOutput({ output: null, attributes: { "gen_ai.output.messages": output } })).toEqual(output);
  });

  it("reads OpenLLMetry's indexed gen_ai.prompt / gen_ai.completion keys", () => {
    const attributes = {
      "gen_ai.prompt.1.role": "user",
      "gen_ai.prompt.1.content": "Second",
      "gen_ai.prompt.0.role": "system",
      "gen_ai.prompt.0.content": "First",
      "gen_ai.completion.0.role": "assistant",
      "gen_ai.completion.0.content": "Reply",
      "gen_ai.completion.0.tool_calls.0.name": "search",
      "gen_ai.completion.0.tool_calls.0.arguments": '{"q": "x"}',
    };
    const input = conversationInput({ input: null, attributes });
    const output = conversationOutput({ output: null, attributes });
    expect(input).toEqual([{ role: "system", content: "First" }, { role: "user", content: "Second" }]);
    expect(turnsOf(input, output).at(-1)).toEqual({ role: "assistant", content: "Reply" });
    expect(toolCallsOf(output)).toEqual([{ name: "search", arguments: { q: "x" } }]);
  });

  it("orders the trace's spans by start time (ties keep their order) and resolves their conversations", () => {
    const at = (s: string) => new Date(`2026-01-01T00:00:0${s}Z`);
    const tool = { ...base, name: "search_orders", kind: "tool", input: { q: 1 }, output: "found", attributes: {}, startTime: at("3") };
    const chat = { ...base, input: "hi", output: "hello", attributes: {}, startTime: at("1") };
    const agent = { ...base, name: "agent", kind: "agent", input: null, output: null, attributes: { "gen_ai.output.messages": '[{"role":"assistant","content":"done"}]' }, startTime: at("1") };
    const doc = spanToDocument(chat, [tool, chat, agent]);
    expect(doc.trace!.spans.map((s) => s.name)).toEqual(["chat", "agent", "search_orders"]);
    expect(doc.trace!.spans[1]!.output).toEqual([{ role: "assistant", content: "done" }]);
    expect(doc.trace!.spans[2]!.start_time).toBe("2026-01-01T00:00:03.000Z");
  });

  it("adds dependency scores and an expected output when given (dependencies, experiments)", () => {
    const doc = spanToDocument({ ...base, input: "q", output: "a", attributes: {} }, [], { scores: { "PII leak": { pii_free: true } }, expected_output: "a" });
    expect(doc.scores).toEqual({ "PII leak": { pii_free: true } });
    expect(doc.expected_output).toBe("a");
    expect(doc.trace).toEqual({ spans: [] });
  });
});

describe("normaliseSpan", () => {
  const now = new Date("2026-02-01T00:00:00Z");
  it("fills defaults: kind from gen_ai.operation.name, else chat for a conversation, else other, startTime = ingest time, status unset", () => {
    const a = normaliseSpan({ traceId: "t", spanId: "s", name: "n", attributes: { "gen_ai.operation.name": "execute_tool" } }, now);
    expect(a).toMatchObject({ span: { kind: "tool", startTime: now, endTime: null, status: "unset", input: null, output: null, metadata: {}, parentSpanId: null } });
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n" }, now)).toMatchObject({ span: { kind: "other" } });
    // A span carrying a conversation is a chat span, so default evaluators (spanKind chat) match it.
    const messages = [{ role: "user", content: "hi" }];
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n", input: messages, output: "yo" }, now)).toMatchObject({ span: { kind: "chat" } });
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n", attributes: { "gen_ai.input.messages": "[]" } }, now)).toMatchObject({ span: { kind: "chat" } });
    // A string input is one user message (docs/document.md), so the span is a chat span too.
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n", input: "q", output: "hi" }, now)).toMatchObject({ span: { kind: "chat" } });
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n", input: { q: 1 }, output: "hi" }, now)).toMatchObject({ span: { kind: "other" } });
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n", output: "hi" }, now)).toMatchObject({ span: { kind: "other" } });
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n", output: "a\u0000b" }, now)).toEqual({
      issues: [{ path: "output", message: "must not contain the character U+0000 (PostgreSQL cannot store it)" }],
    });
    // The six characters backslash-u-0-0-0-0 are ordinary text.
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n", output: "C:\\u0000" }, now)).toHaveProperty("span");
    expect(normaliseSpan({ traceId: "t", spanId: "s", name: "n", kind: "chat", startTime: 1_700_000_000_000 }, now)).toMatchObject({
      span: { kind: "chat", startTime: new Date(1_700_000_000_000) },
    });
  });
  it("reads an epoch number's unit by its size, as the CLI's time flags do (below 1e11 s, 1e14 ms, 1e17 µs, else ns)", () => {
    const at = (startTime: unknown, endTime?: unknown) => normaliseSpan({ traceId: "t", spanId: "s", name: "n", startTime, endTime }, now);
    const instant = new Date("2026-12-01T17:01:59.000Z"); // 1796144519 s
    expect(at(1796144519)).toMatchObject({ span: { startTime: instant } });
    expect(at(1796144519000)).toMatchObject({ span: { startTime: instant } });
    expect(at(1796144519000000)).toMatchObject({ span: { startTime: instant } });
    expect(at(1796144519000000000)).toMatchObject({ span: { startTime: instant } });
    // Fractions of a second are kept to the millisecond; the thresholds themselves as the CLI reads them.
    expect(at(1796144519.25, 1796144519250)).toMatchObject({ span: { startTime: new Date("2026-12-01T17:01:59.250Z"), endTime: new Date("2026-12-01T17:01:59.250Z") } });
    expect(at(99_999_999_999)).toMatchObject({ span: { startTime: new Date(99_999_999_999_000) } });
    expect(at(100_000_000_000)).toMatchObject({ span: { startTime: new Date(100_000_000_000) } });
    expect(at(1e14)).toMatchObject({ span: { startTime: new Date(1e11) } });
    expect(at(1e17)).toMatchObject({ span: { startTime: new Date(1e11) } });
    // Each field is read on its own: a start in seconds and an end in milliseconds compare as instants.
    expect(at(1796144519, 1796144520500)).toMatchObject({ span: { startTime: instant, endTime: new Date(instant.getTime() + 1500) } });
    expect(at(1796144519, 1796144518000)).toMatchObject({ issues: [{ path: "endTime", message: "must not be before startTime" }] });
    expect(at(1e25)).toMatchObject({ issues: [{ path: "startTime" }] });
  });
  it("reports every problem with its path", () => {
    const result = normaliseSpan({ spanId: 5, name: "", kind: "llm", startTime: "yesterday", attributes: [], extra: 1 }, now);
    expect("issues" in result && result.issues).toEqual([
      { path: "traceId", message: "is required" },
      { path: "spanId", message: "must be a string (the span id)" },
      { path: "name", message: "must not be empty" },
      { path: "kind", message: "must be one of chat, tool, agent, retrieval, other" },
      {
        path: "startTime",
        message:
          "must be an ISO 8601 date-time with a zone (e.g. 2026-01-31T12:00:00Z) or a number of seconds, milliseconds, microseconds or nanoseconds since the epoch told apart by size (below 1e11 seconds, below 1e14 ms, below 1e17 µs, else ns)",
      },
      { path: "attributes", message: "must be an object of attribute key to value" },
      { path: "extra", message: "unknown field" },
    ]);
  });
  it("refuses an end before the start", () => {
    const result = normaliseSpan({ traceId: "t", spanId: "s", name: "n", startTime: "2026-01-01T00:00:02Z", endTime: "2026-01-01T00:00:01Z" }, now);
    expect(result).toEqual({ issues: [{ path: "endTime", message: "must not be before startTime" }] });
  });
});

describe("the execution record", () => {
  it("stores a number for filters: the number, 1/0 for booleans, null otherwise", () => {
    expect([numericValueOf(0.25), numericValueOf(true), numericValueOf(false), numericValueOf("label"), numericValueOf(null)]).toEqual([0.25, 1, 0, null, null]);
  });
  it("caps captured output and says how much was cut", () => {
    expect(capText("abc", 5)).toBe("abc");
    expect(capText("abcdefgh", 5)).toBe("abcde\n… [3 more characters not kept]");
  });
  it("keeps scores only for ok and splits the error", () => {
    const failed = runColumns({ outcome: "user_error", scores: [], stdout: "x", stderr: "", durationMs: 3, error: { type: "KeyError", message: "'a'", traceback: 'File "<evaluator>", line 2' } });
    expect(failed).toEqual({ outcome: "user_error", stdout: "x", stderr: "", errorType: "KeyError", errorMessage: "'a'", errorTraceback: 'File "<evaluator>", line 2', durationMs: 3, scores: [], outputTruncated: false });
    const ok = runColumns({
      outcome: "ok",
      stdout: "",
      stderr: "",
      durationMs: 1,
      scores: [
        { name: "a", value: true, data_type: "BOOLEAN", higher_is_better: false, comment: "why", metadata: { k: 1 } },
        { name: "b", value: "x", data_type: "CATEGORICAL", higher_is_better: true, comment: null, metadata: null },
      ],
    });
    expect(ok.scores).toEqual([
      { position: 0, name: "a", dataType: "BOOLEAN", value: true, numericValue: 1, higherIsBetter: false, comment: "why", metadata: { k: 1 } },
      { position: 1, name: "b", dataType: "CATEGORICAL", value: "x", numericValue: null, higherIsBetter: true, comment: null, metadata: null },
    ]);
  });
  it("replaces U+0000 (which Postgres refuses) in output, errors and scores, on the live and experiment paths alike", () => {
    const columns = runColumns({
      outcome: "ok",
      stdout: "a\u0000b",
      stderr: "\u0000",
      durationMs: 1,
      error: { type: "T\u0000", message: "m\u0000", traceback: "t\u0000" },
      scores: [{ name: "n\u0000", value: "v\u0000", data_type: "CATEGORICAL", higher_is_better: true, comment: "c\u0000", metadata: { k: "m\u0000" } }],
    });
    expect(JSON.stringify(columns)).not.toContain("\\u0000");
    expect(columns.stdout).toBe("a\uFFFDb");
    expect(columns.scores[0]).toMatchObject({ name: "n\uFFFD", value: "v\uFFFD", comment: "c\uFFFD", metadata: { k: "m\uFFFD" } });
  });
});
