import { LRUCache } from "lru-cache";
import { createHash } from "node:crypto";

/**
 * An evaluator's rule (docs/evaluation.md § Which spans an evaluator runs on), applied to each new span. Pure: the
 * decision depends only on the rule and the span, so a retry or a re-ingest decides the same.
 */

/** The fields of an evaluator that decide whether it runs on a span. */
export interface EvaluatorRule {
  id: string;
  enabled: boolean;
  spanKind: string;
  spanNamePattern: string | null;
  attributeEquals: unknown;
  /** Span attributes holding a list (or a JSON string of one) that must contain the value: key → string, number or boolean. */
  attributeContains: unknown;
  /** Resource attributes that must be equal (`deployment.environment`, `service.name`): key → value. */
  resourceAttributeEquals: unknown;
  /** Only spans without a parent (the root of their trace). */
  rootSpansOnly: boolean;
  samplingRate: number;
}

/** The columns of an evaluator a rule reads (a Prisma `select`). */
export const RULE_SELECT = {
  id: true,
  enabled: true,
  spanKind: true,
  spanNamePattern: true,
  attributeEquals: true,
  attributeContains: true,
  resourceAttributeEquals: true,
  rootSpansOnly: true,
  samplingRate: true,
} as const;

/** The rule of an evaluator row (its other columns left out). */
export function ruleOf(row: EvaluatorRule): EvaluatorRule {
  const { id, enabled, spanKind, spanNamePattern, attributeEquals, attributeContains, resourceAttributeEquals, rootSpansOnly, samplingRate } = row;
  return { id, enabled, spanKind, spanNamePattern, attributeEquals, attributeContains, resourceAttributeEquals, rootSpansOnly, samplingRate };
}

/** What a rule reads of a span. `traceId` + `spanId` (the span's own ids) seed the sampling. */
export interface MatchableSpan {
  traceId: string;
  spanId: string;
  /** Null for a root span. */
  parentSpanId: string | null;
  name: string;
  kind: string;
  attributes: unknown;
  /** The span's metadata: its resource attributes are at `otel.resource.attributes` (where OTLP ingest puts them). */
  metadata: unknown;
}

/** The columns of a span a rule reads (a Prisma `select`). */
export const MATCHABLE_SPAN_SELECT = { traceId: true, spanId: true, parentSpanId: true, name: true, kind: true, attributes: true, metadata: true } as const;

/** Why a span was not evaluated: the first condition of the rule that it failed. */
export type SkipReason = "disabled" | "kind" | "root" | "name" | "attributes" | "resource" | "sampling";

/** The conditions of a rule, in the order they are applied (the first that fails is the skip reason). */
export const RULE_CONDITIONS = ["enabled", "kind", "root", "name", "attributes", "resource", "sampling"] as const;
/** One of {@link RULE_CONDITIONS}. */
export type RuleCondition = (typeof RULE_CONDITIONS)[number];

/** How one part of a rule met the span (explainMatch lists them all, passed or not). */
export interface ConditionResult {
  condition: RuleCondition;
  /** The attribute key of an attribute or resource condition (one result per key); null otherwise. */
  key: string | null;
  passed: boolean;
  /** A sentence for people: the values compared. */
  detail: string;
}

/** The decision for one (span, evaluator). */
export interface MatchDecision {
  matched: boolean;
  /** Set when not matched. */
  reason?: SkipReason;
  /** A sentence for people: what failed, with the values compared. */
  detail: string;
  /** The sampling draw in [0, 1): the span is sampled when draw < samplingRate. */
  draw: number;
  /** With `explain`: every part of the rule the span met or failed, in order (enabled, kind, root, name, each attribute key, each resource key, sampling). */
  conditions?: ConditionResult[];
}

/** Compiled globs by pattern (evaluator rules repeat); the least recently used go first. */
const globCache = new LRUCache<string, RegExp>({ max: 1_000 });

/** A glob as an anchored RegExp: `*` any characters (also none), `?` one character, the rest literal. */
export function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (!re) {
    const body = [...glob].map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\/]/g, "\\$&"))).join("");
    re = new RegExp(`^${body}$`, "su");
    globCache.set(glob, re);
  }
  return re;
}

/**
 * The deterministic sampling draw of a (span, evaluator): the first 52 bits of
 * SHA-256(traceId, spanId, evaluatorId) as a number in [0, 1). Uses the span's own ids (not the
 * stored row id), so the same span sent again draws the same number.
 */
export function samplingDraw(traceId: string, spanId: string, evaluatorId: string): number {
  const digest = createHash("sha256").update(`${traceId}\u0000${spanId}\u0000${evaluatorId}`).digest();
  const high = digest.readUInt32BE(0) >>> 12; // 20 bits
  const low = digest.readUInt32BE(4); // 32 bits
  return (high * 2 ** 32 + low) / 2 ** 52;
}

/** An attribute by its flat key, else by a dotted path through nested objects (as text.metadata_value). */
export function attributeValue(attributes: unknown, key: string): unknown {
  if (typeof attributes !== "object" || attributes === null) return undefined;
  const flat = attributes as Record<string, unknown>;
  if (Object.hasOwn(flat, key)) return flat[key];
  let node: unknown = attributes;
  for (const part of key.split(".")) {
    if (typeof node !== "object" || node === null || Array.isArray(node) || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The resource attributes of a span: `metadata.otel.resource.attributes` (OTLP ingest, or given to ingestSpans as `resourceAttributes`); `{}` when absent. */
export function resourceAttributesOf(metadata: unknown): Record<string, unknown> {
  const otel = typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>).otel : undefined;
  const resource = typeof otel === "object" && otel !== null ? (otel as Record<string, unknown>).resource : undefined;
  const attributes = typeof resource === "object" && resource !== null ? (resource as Record<string, unknown>).attributes : undefined;
  return typeof attributes === "object" && attributes !== null && !Array.isArray(attributes) ? (attributes as Record<string, unknown>) : {};
}

/**
 * The elements of a list attribute: the list itself, or a string that holds a JSON list (how SDKs
 * without array attributes send tags); null when the value is not a list.
 */
export function listElements(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (typeof value === "string" && value.trimStart().startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: not a list
    }
  }
  return null;
}

/** A rule's JSON map column as entries (`{}` when it is not an object). */
function entriesOf(value: unknown): [string, unknown][] {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : [];
}

const seen = (actual: unknown) => (actual === undefined ? "is missing" : `is ${JSON.stringify(actual)}`);

/**
 * The checks of a rule on a span, in order, each computed when it is reached: one for enabled,
 * kind, root (when asked), name (when a pattern is set), each key of attributeEquals and of
 * attributeContains, each key of resourceAttributeEquals, then sampling. A passing check's
 * detail is written only when `explain` is set (ingest decides millions of pairs and reads none).
 */
function* checks(rule: EvaluatorRule, span: MatchableSpan, draw: number, explain: boolean): Generator<ConditionResult> {
  const ok = (condition: RuleCondition, key: string | null, detail: () => string): ConditionResult => ({ condition, key, passed: true, detail: explain ? detail() : "" });
  const no = (condition: RuleCondition, key: string | null, detail: string): ConditionResult => ({ condition, key, passed: false, detail });
  yield rule.enabled ? ok("enabled", null, () => "the evaluator is enabled") : no("enabled", null, "the evaluator is disabled");
  yield span.kind === rule.spanKind
    ? ok("kind", null, () => `the span's kind is "${span.kind}"`)
    : no("kind", null, `the span's kind is "${span.kind}"; the evaluator runs on "${rule.spanKind}" spans`);
  if (rule.rootSpansOnly) {
    yield span.parentSpanId === null || span.parentSpanId === undefined
      ? ok("root", null, () => "the span is a root span (no parent)")
      : no("root", null, `the span has a parent (${span.parentSpanId}); the evaluator runs on root spans only`);
  }
  if (rule.spanNamePattern !== null) {
    yield globToRegExp(rule.spanNamePattern).test(span.name)
      ? ok("name", null, () => `the span's name "${span.name}" matches the pattern "${rule.spanNamePattern}"`)
      : no("name", null, `the span's name "${span.name}" does not match the pattern "${rule.spanNamePattern}"`);
  }
  for (const [key, value] of entriesOf(rule.attributeEquals)) {
    const actual = attributeValue(span.attributes, key);
    yield actual === value ? ok("attributes", key, () => `attribute "${key}" is ${JSON.stringify(value)}`) : no("attributes", key, `attribute "${key}" ${seen(actual)}; the evaluator wants ${JSON.stringify(value)}`);
  }
  for (const [key, value] of entriesOf(rule.attributeContains)) {
    const actual = attributeValue(span.attributes, key);
    const list = listElements(actual);
    if (list === null) {
      const got = actual === undefined ? "is missing" : `is ${JSON.stringify(actual)}, not a list`;
      yield no("attributes", key, `attribute "${key}" ${got}; the evaluator wants a list containing ${JSON.stringify(value)}`);
    } else {
      yield list.some((element) => element === value)
        ? ok("attributes", key, () => `attribute "${key}" contains ${JSON.stringify(value)}`)
        : no("attributes", key, `attribute "${key}" is ${JSON.stringify(list)}, without ${JSON.stringify(value)}; the evaluator wants a list containing it`);
    }
  }
  const resource = entriesOf(rule.resourceAttributeEquals);
  if (resource.length) {
    const attributes = resourceAttributesOf(span.metadata);
    for (const [key, value] of resource) {
      const actual = attributeValue(attributes, key);
      yield actual === value
        ? ok("resource", key, () => `resource attribute "${key}" is ${JSON.stringify(value)}`)
        : no("resource", key, `resource attribute "${key}" ${seen(actual)}; the evaluator wants ${JSON.stringify(value)}`);
    }
  }
  yield draw < rule.samplingRate
    ? ok("sampling", null, () => (rule.samplingRate < 1 ? `sampled: draw ${draw.toFixed(4)} < ${rule.samplingRate}` : "every span is sampled (rate 1)"))
    : no("sampling", null, `left out by sampling: draw ${draw.toFixed(4)} is not below the rate ${rule.samplingRate}`);
}

/**
 * Applies an evaluator's rule to a span, condition by condition: enabled, kind, root spans only,
 * name pattern, span attributes (equality, strict: "1" is not 1; then list membership), resource
 * attributes (equality), then sampling; the first that fails is the `reason`. With `explain`,
 * every condition is checked and `conditions` says which part matched and which did not (the
 * explainMatch query); without it the first failure ends the check.
 */
export function matchSpan(rule: EvaluatorRule, span: MatchableSpan, options: { explain?: boolean } = {}): MatchDecision {
  const draw = samplingDraw(span.traceId, span.spanId, rule.id);
  const explain = options.explain === true;
  const conditions: ConditionResult[] = [];
  let failed: ConditionResult | undefined;
  for (const result of checks(rule, span, draw, explain)) {
    if (explain) conditions.push(result);
    if (!result.passed && !failed) {
      failed = result;
      if (!explain) break;
    }
  }
  const base = explain ? { draw, conditions } : { draw };
  if (failed) return { matched: false, reason: failed.condition === "enabled" ? "disabled" : failed.condition, detail: failed.detail, ...base };
  return { matched: true, detail: rule.samplingRate < 1 ? `matched and sampled (draw ${draw.toFixed(4)} < ${rule.samplingRate})` : "matched", ...base };
}
