import { describe, expect, it } from "vitest";
import { directionOf } from "../../src/modules/experiments/compare.js";
import { itemToDocument } from "../../src/modules/experiments/document.js";
import { documentScores, failedGate } from "../../src/modules/dependencies/input-runs.js";
import { InputsByTarget } from "../../src/modules/evaluation/inputs.js";
import { scorePasses } from "../../src/modules/dependencies/passed.js";
import { itemColumnsOf } from "../../src/modules/datasets/item-record.js";

describe("itemToDocument", () => {
  const base = { input: [{ role: "user", content: "q" }], output: "a", expectedOutput: "e", context: "ctx", metadata: { k: 1 }, traceSpans: null };
  it("maps the item onto the sample document; tool calls become spans of kind tool, in call order", () => {
    const doc = itemToDocument({ ...base, toolCalls: [{ name: "search", arguments: { q: 1 } }, { name: "book", arguments: {} }] });
    expect(doc).toEqual({
      input: base.input,
      output: "a",
      expected_output: "e",
      attributes: { context: "ctx" },
      metadata: { k: 1 },
      trace: {
        spans: [
          { name: "search", kind: "tool", input: { q: 1 }, output: null, attributes: { "gen_ai.tool.name": "search" } },
          { name: "book", kind: "tool", input: {}, output: null, attributes: { "gen_ai.tool.name": "book" } },
        ],
      },
    });
  });
  it("prefers the item's own trace, and adds dependency scores when given", () => {
    const spans = [{ name: "retrieve", kind: "retrieval" }];
    const doc = itemToDocument({ ...base, context: null, toolCalls: [{ name: "x" }], traceSpans: spans }, { Judge: { relevance: 0.8 } });
    expect(doc.trace).toEqual({ spans });
    expect(doc.attributes).toEqual({});
    expect(doc.scores).toEqual({ Judge: { relevance: 0.8 } });
  });
  it("adds the reference tool calls to the metadata (the document has no key for them)", () => {
    const expected = [{ name: "book", arguments: { id: 1 } }];
    expect(itemToDocument({ ...base, toolCalls: null, expectedToolCalls: expected }).metadata).toEqual({ k: 1, expected_tool_calls: expected });
    expect(itemToDocument({ ...base, toolCalls: null, metadata: { expected_tool_calls: "own" }, expectedToolCalls: expected }).metadata).toEqual({ expected_tool_calls: "own" });
  });
});

describe("InputsByTarget (what dependents read on an item, on every path)", () => {
  it("gives document.scores by dependency name and applies gates with combine.passed", () => {
    const runs = new InputsByTarget();
    runs.set("item", { id: "r1", evaluatorId: "json", outcome: "ok", scores: [{ name: "is_json", value: false, dataType: "BOOLEAN", numericValue: 0, higherIsBetter: true }] });
    const deps = [
      { dependsOnId: "json", name: "JSON check", gate: { score: "is_json", at: null } },
      { dependsOnId: "judge", name: "Judge", gate: null },
    ];
    const ids = deps.map((d) => d.dependsOnId);
    expect(documentScores(deps, runs.inputsOf("item", ids))).toEqual({ "JSON check": { is_json: false } });
    expect(failedGate(deps, runs.inputsOf("item", ids))).toEqual(expect.stringContaining("did not pass"));
    expect(failedGate(deps, runs.inputsOf("other", ids))).toEqual(expect.stringContaining("has no run"));
    runs.set("ok", { id: "r2", evaluatorId: "json", outcome: "ok", scores: [{ name: "is_json", value: true, dataType: "BOOLEAN", numericValue: 1, higherIsBetter: true }] });
    expect(failedGate(deps, runs.inputsOf("ok", ids))).toBeNull();
  });
});

describe("scorePasses (combine.passed)", () => {
  it("reads booleans and numbers in the score's direction; no value fails; categories have no pass", () => {
    expect(scorePasses({ dataType: "BOOLEAN", numericValue: 1, higherIsBetter: true })).toBe(true);
    expect(scorePasses({ dataType: "BOOLEAN", numericValue: 1, higherIsBetter: false })).toBe(false);
    expect(scorePasses({ dataType: "NUMERIC", numericValue: 0.5, higherIsBetter: true })).toBe(true);
    expect(scorePasses({ dataType: "NUMERIC", numericValue: 0.5, higherIsBetter: false })).toBe(false);
    expect(scorePasses({ dataType: "NUMERIC", numericValue: 0.49, higherIsBetter: false })).toBe(true);
    expect(scorePasses({ dataType: "NUMERIC", numericValue: null, higherIsBetter: true })).toBe(false);
    expect(scorePasses({ dataType: "CATEGORICAL", numericValue: null, higherIsBetter: true })).toBeNull();
  });
  it("gives a change its direction", () => {
    expect(directionOf({ basePassed: true, candidatePassed: false, baseNumber: 1, candidateNumber: 0, higherIsBetter: true })).toBe("regressed");
    expect(directionOf({ basePassed: true, candidatePassed: true, baseNumber: 0.7, candidateNumber: 0.9, higherIsBetter: true })).toBe("improved");
    expect(directionOf({ basePassed: false, candidatePassed: false, baseNumber: 20, candidateNumber: 30, higherIsBetter: false })).toBe("regressed");
    expect(directionOf({ basePassed: null, candidatePassed: null, baseNumber: null, candidateNumber: null, higherIsBetter: true })).toBe("changed");
  });
});

describe("itemColumnsOf (one items.jsonl line)", () => {
  it("accepts the shared/data shape plus a trace, and refuses unknown keys and U+0000", () => {
    const ok = itemColumnsOf({ id: 7, input: "hi", output: null, trace: { spans: [{ name: "s", kind: "tool" }] } });
    expect(ok.columns).toMatchObject({ externalId: "7", input: "hi", output: null, traceSpans: [{ name: "s", kind: "tool" }], metadata: {} });
    expect(itemColumnsOf({ id: "x", outptu: "typo" }).issues).toEqual([{ path: "outptu", message: "unknown field" }]);
    expect(itemColumnsOf([1, 2]).issues).toEqual([{ path: "", message: "must be a JSON object" }]);
    // The ids trace and session evaluators read: strings or numbers, kept as given.
    const spans = [{ name: "root", span_id: "r", trace_id: 7 }, { name: "child", span_id: "c", parent_span_id: "r", trace_id: 7, metadata: { k: 1 } }];
    expect(itemColumnsOf({ trace: spans }).columns?.traceSpans).toEqual(spans);
    expect(itemColumnsOf({ trace: [{ name: "s", span_id: { id: 1 } }, { name: "t", metadata: [] }] }).issues).toEqual([
      { path: "trace[0].span_id", message: "must be a string or a number" },
      { path: "trace[1].metadata", message: "must be an object" },
    ]);
    expect(itemColumnsOf({ output: "a\u0000b" }).issues).toEqual([{ path: "output", message: "must not contain the character U+0000 (PostgreSQL cannot store it)" }]);
  });
});
