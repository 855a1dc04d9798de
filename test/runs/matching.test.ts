// Matching and sampling (docs/evaluation.md § Which spans an evaluator runs on): the rule applied condition by condition, deterministic sampling.
import { describe, expect, it } from "vitest";
import { attributeValue, globToRegExp, matchSpan, samplingDraw, type EvaluatorRule } from "../../src/modules/spans/matching.js";

const rule = (over: Partial<EvaluatorRule> = {}): EvaluatorRule => ({
  id: "5f0c7f43-6f2f-4c1e-9a55-5d6c2c7f4d11",
  enabled: true,
  spanKind: "chat",
  spanNamePattern: null,
  attributeEquals: {},
  samplingRate: 1,
  ...over,
});
const span = (over: Record<string, unknown> = {}) => ({ traceId: "t1", spanId: "s1", name: "support.reply", kind: "chat", attributes: {}, ...over });

describe("globToRegExp", () => {
  it("matches * as any run of characters and ? as one, the rest literally", () => {
    expect(globToRegExp("support.*").test("support.reply")).toBe(true);
    expect(globToRegExp("support.*").test("support.")).toBe(true);
    expect(globToRegExp("support.*").test("supportXreply")).toBe(false);
    expect(globToRegExp("chat-v?").test("chat-v2")).toBe(true);
    expect(globToRegExp("chat-v?").test("chat-v10")).toBe(false);
    expect(globToRegExp("a+b(c)[d]$^").test("a+b(c)[d]$^")).toBe(true);
    expect(globToRegExp("*").test("")).toBe(true);
    expect(globToRegExp("Chat").test("chat")).toBe(false);
  });
  it("is anchored at both ends", () => {
    expect(globToRegExp("reply").test("support.reply")).toBe(false);
    expect(globToRegExp("*reply").test("support.reply")).toBe(true);
  });
});

describe("samplingDraw", () => {
  it("is deterministic per (trace id, span id, evaluator id) and in [0, 1)", () => {
    const a = samplingDraw("t", "s", "e");
    expect(samplingDraw("t", "s", "e")).toBe(a);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(1);
    expect(samplingDraw("t", "s", "e2")).not.toBe(a);
    expect(samplingDraw("t2", "s", "e")).not.toBe(a);
    // the separator keeps ("ab", "c") and ("a", "bc") apart
    expect(samplingDraw("ab", "c", "e")).not.toBe(samplingDraw("a", "bc", "e"));
  });
  it("samples close to the rate over many spans", () => {
    const r = rule({ samplingRate: 0.25 });
    const n = 10_000;
    let kept = 0;
    for (let i = 0; i < n; i++) if (matchSpan(r, span({ spanId: `s${i}` })).matched) kept += 1;
    expect(kept / n).toBeGreaterThan(0.23);
    expect(kept / n).toBeLessThan(0.27);
  });
  it("rate 1 keeps every span and rate 0 none", () => {
    for (let i = 0; i < 200; i++) {
      expect(matchSpan(rule({ samplingRate: 1 }), span({ spanId: `s${i}` })).matched).toBe(true);
      expect(matchSpan(rule({ samplingRate: 0 }), span({ spanId: `s${i}` })).reason).toBe("sampling");
    }
  });
});

describe("matchSpan", () => {
  it("matches a chat span with the default rule", () => {
    expect(matchSpan(rule(), span())).toMatchObject({ matched: true, detail: "matched" });
  });
  it("reports the first condition that fails, in order: disabled, kind, name, attributes, sampling", () => {
    const everything = rule({ enabled: false, spanKind: "tool", spanNamePattern: "x*", attributeEquals: { a: 1 }, samplingRate: 0 });
    expect(matchSpan(everything, span()).reason).toBe("disabled");
    expect(matchSpan({ ...everything, enabled: true }, span()).reason).toBe("kind");
    expect(matchSpan({ ...everything, enabled: true, spanKind: "chat" }, span()).reason).toBe("name");
    expect(matchSpan({ ...everything, enabled: true, spanKind: "chat", spanNamePattern: "support.*" }, span()).reason).toBe("attributes");
    expect(matchSpan({ ...everything, enabled: true, spanKind: "chat", spanNamePattern: "support.*", attributeEquals: {} }, span()).reason).toBe("sampling");
  });
  it("compares attributes strictly and says what it saw", () => {
    const r = rule({ attributeEquals: { "app.team": "support", "app.tier": 1, "app.beta": true } });
    const good = span({ attributes: { "app.team": "support", "app.tier": 1, "app.beta": true, other: "x" } });
    expect(matchSpan(r, good).matched).toBe(true);
    const stringly = matchSpan(r, span({ attributes: { "app.team": "support", "app.tier": "1", "app.beta": true } }));
    expect(stringly).toMatchObject({ matched: false, reason: "attributes", detail: 'attribute "app.tier" is "1"; the evaluator wants 1' });
    expect(matchSpan(r, span({ attributes: { "app.team": "support" } })).detail).toBe('attribute "app.tier" is missing; the evaluator wants 1');
  });
  it("reads an attribute by its flat key, else by a dotted path", () => {
    expect(attributeValue({ "app.team": "a", app: { team: "b" } }, "app.team")).toBe("a");
    expect(attributeValue({ app: { team: "b" } }, "app.team")).toBe("b");
    expect(attributeValue({ app: { team: "b" } }, "app.tier")).toBeUndefined();
    expect(matchSpan(rule({ attributeEquals: { "app.team": "b" } }), span({ attributes: { app: { team: "b" } } })).matched).toBe(true);
  });
  it("decides the same for the same span every time (a retry or re-ingest does not change it)", () => {
    const r = rule({ samplingRate: 0.5 });
    const decisions = Array.from({ length: 50 }, (_, i) => matchSpan(r, span({ spanId: `s${i}` })).matched);
    expect(Array.from({ length: 50 }, (_, i) => matchSpan(r, span({ spanId: `s${i}` })).matched)).toEqual(decisions);
    expect(decisions.some(Boolean) && decisions.some((d) => !d)).toBe(true);
  });
});
