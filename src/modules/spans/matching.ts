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
  samplingRate: number;
}

/** What a rule reads of a span. `traceId` + `spanId` (the span's own ids) seed the sampling. */
export interface MatchableSpan {
  traceId: string;
  spanId: string;
  name: string;
  kind: string;
  attributes: unknown;
}

/** Why a span was not evaluated: the first condition of the rule that it failed. */
export type SkipReason = "disabled" | "kind" | "name" | "attributes" | "sampling";

/** The decision for one (span, evaluator). */
export interface MatchDecision {
  matched: boolean;
  /** Set when not matched. */
  reason?: SkipReason;
  /** A sentence for people: what failed, with the values compared. */
  detail: string;
  /** The sampling draw in [0, 1): the span is sampled when draw < samplingRate. */
  draw: number;
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

/**
 * Applies an evaluator's rule to a span, condition by condition: enabled, kind, name pattern,
 * attribute equality (strict: "1" is not 1), then sampling.
 */
export function matchSpan(rule: EvaluatorRule, span: MatchableSpan): MatchDecision {
  const draw = samplingDraw(span.traceId, span.spanId, rule.id);
  if (!rule.enabled) return { matched: false, reason: "disabled", detail: "the evaluator is disabled", draw };
  if (span.kind !== rule.spanKind) {
    return { matched: false, reason: "kind", detail: `the span's kind is "${span.kind}"; the evaluator runs on "${rule.spanKind}" spans`, draw };
  }
  if (rule.spanNamePattern !== null && !globToRegExp(rule.spanNamePattern).test(span.name)) {
    return { matched: false, reason: "name", detail: `the span's name "${span.name}" does not match the pattern "${rule.spanNamePattern}"`, draw };
  }
  const wanted = typeof rule.attributeEquals === "object" && rule.attributeEquals !== null ? (rule.attributeEquals as Record<string, unknown>) : {};
  for (const [key, value] of Object.entries(wanted)) {
    const actual = attributeValue(span.attributes, key);
    if (actual !== value) {
      const seen = actual === undefined ? "is missing" : `is ${JSON.stringify(actual)}`;
      return { matched: false, reason: "attributes", detail: `attribute "${key}" ${seen}; the evaluator wants ${JSON.stringify(value)}`, draw };
    }
  }
  if (!(draw < rule.samplingRate)) {
    return { matched: false, reason: "sampling", detail: `left out by sampling: draw ${draw.toFixed(4)} is not below the rate ${rule.samplingRate}`, draw };
  }
  return { matched: true, detail: rule.samplingRate < 1 ? `matched and sampled (draw ${draw.toFixed(4)} < ${rule.samplingRate})` : "matched", draw };
}
