// Matching and sampling (docs/evaluation.md § Which spans an evaluator runs on): the rule applied condition by condition, deterministic sampling.
import { describe, expect, it } from "vitest";
import { attributeValue, globToRegExp, listElements, matchSpan, resourceAttributesOf, samplingDraw, type EvaluatorRule, type MatchableSpan } from "../../src/modules/spans/matching.js";

const rule = (over: Partial<EvaluatorRule> = {}): EvaluatorRule => ({
  id: "5f0c7f43-6f2f-4c1e-9a55-5d6c2c7f4d11",
  enabled: true,
  spanKind: "chat",
  spanNamePattern: null,
  attributeEquals: {},
  attributeContains: {},
  resourceAttributeEquals: {},
  rootSpansOnly: false,
  samplingRate: 1,
  ...over,
});
const span = (over: Partial<MatchableSpan> = {}): MatchableSpan => ({ traceId: "t1", spanId: "s1", parentSpanId: null, name: "support.reply", kind: "chat", attributes: {}, metadata: {}, ...over });

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

// Issue 27: rules on resource attributes, one element of a list attribute (tags) and root spans only.
describe("matchSpan: resource attributes, list attributes, root spans", () => {
  const otel = (attributes: Record<string, unknown>) => ({ otel: { resource: { attributes } } });

  it("matches resource attributes (deployment.environment, service.name) where OTLP keeps them, not span attributes", () => {
    const r = rule({ resourceAttributeEquals: { "deployment.environment": "production", "service.name": "support-bot" } });
    const prod = span({ metadata: otel({ "deployment.environment": "production", "service.name": "support-bot", "host.name": "h1" }) });
    expect(matchSpan(r, prod).matched).toBe(true);
    const staging = matchSpan(r, span({ metadata: otel({ "deployment.environment": "staging", "service.name": "support-bot" }) }));
    expect(staging).toMatchObject({ matched: false, reason: "resource", detail: 'resource attribute "deployment.environment" is "staging"; the evaluator wants "production"' });
    // the same key as a span attribute is not a resource attribute
    const onSpan = matchSpan(r, span({ attributes: { "deployment.environment": "production", "service.name": "support-bot" } }));
    expect(onSpan).toMatchObject({ matched: false, reason: "resource", detail: 'resource attribute "deployment.environment" is missing; the evaluator wants "production"' });
    expect(resourceAttributesOf(null)).toEqual({});
    expect(resourceAttributesOf({ otel: { resource: { attributes: ["x"] } } })).toEqual({});
  });

  it("matches one element of a list attribute, also a list sent as a JSON string; a scalar is not a list", () => {
    const r = rule({ attributeContains: { "tag.tags": "vip" } });
    expect(matchSpan(r, span({ attributes: { "tag.tags": ["new", "vip"] } })).matched).toBe(true);
    expect(matchSpan(r, span({ attributes: { "tag.tags": '["vip"]' } })).matched).toBe(true);
    expect(matchSpan(r, span({ attributes: { "tag.tags": ["new"] } }))).toMatchObject({
      matched: false,
      reason: "attributes",
      detail: 'attribute "tag.tags" is ["new"], without "vip"; the evaluator wants a list containing it',
    });
    expect(matchSpan(r, span({ attributes: { "tag.tags": "vip" } })).detail).toBe('attribute "tag.tags" is "vip", not a list; the evaluator wants a list containing "vip"');
    expect(matchSpan(r, span()).detail).toBe('attribute "tag.tags" is missing; the evaluator wants a list containing "vip"');
    // strict, as attributeEquals: the number 1 is not the string "1"
    expect(matchSpan(rule({ attributeContains: { ids: 1 } }), span({ attributes: { ids: ["1", 2] } })).matched).toBe(false);
    expect(listElements("[not json")).toBeNull();
    expect(listElements('{"a": 1}')).toBeNull();
  });

  it("runs on root spans only when asked", () => {
    const r = rule({ rootSpansOnly: true });
    expect(matchSpan(r, span()).matched).toBe(true);
    expect(matchSpan(r, span({ parentSpanId: "p1" }))).toMatchObject({ matched: false, reason: "root", detail: "the span has a parent (p1); the evaluator runs on root spans only" });
    expect(matchSpan(rule(), span({ parentSpanId: "p1" })).matched).toBe(true);
  });

  it("applies the conditions in order: disabled, kind, root, name, attributes, resource, sampling", () => {
    const all = rule({ enabled: false, spanKind: "tool", rootSpansOnly: true, spanNamePattern: "x*", attributeContains: { tags: "a" }, resourceAttributeEquals: { env: "prod" }, samplingRate: 0 });
    const s = span({ parentSpanId: "p" });
    const reasons = [];
    let r = all;
    for (const fix of [{ enabled: true }, { spanKind: "chat" }, { rootSpansOnly: false }, { spanNamePattern: null }, { attributeContains: {} }, { resourceAttributeEquals: {} }]) {
      reasons.push(matchSpan(r, s).reason);
      r = { ...r, ...fix };
    }
    reasons.push(matchSpan(r, s).reason);
    expect(reasons).toEqual(["disabled", "kind", "root", "name", "attributes", "resource", "sampling"]);
  });

  it("with explain, says which part matched and which did not, every part checked", () => {
    const r = rule({ spanNamePattern: "support.*", attributeEquals: { "app.team": "support" }, attributeContains: { "tag.tags": "vip" }, resourceAttributeEquals: { "deployment.environment": "production" }, rootSpansOnly: true });
    const decision = matchSpan(r, span({ parentSpanId: "p1", attributes: { "app.team": "support", "tag.tags": ["vip"] }, metadata: otel({ "deployment.environment": "staging" }) }), { explain: true });
    expect(decision.reason).toBe("root");
    expect(decision.conditions!.map((c) => [c.condition, c.key, c.passed])).toEqual([
      ["enabled", null, true],
      ["kind", null, true],
      ["root", null, false],
      ["name", null, true],
      ["attributes", "app.team", true],
      ["attributes", "tag.tags", true],
      ["resource", "deployment.environment", false],
      ["sampling", null, true],
    ]);
    expect(decision.conditions![5]!.detail).toBe('attribute "tag.tags" contains "vip"');
    expect(decision.conditions![6]!.detail).toBe('resource attribute "deployment.environment" is "staging"; the evaluator wants "production"');
    // without explain, the first failure ends the check and nothing else is listed
    expect(matchSpan(r, span({ parentSpanId: "p1" })).conditions).toBeUndefined();
  });
});
