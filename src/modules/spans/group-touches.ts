import type { GroupTargetType } from "../../lib/closed-lists.js";
import { isEndMarker } from "../evaluators/group-completion.js";
import type { GroupSettings } from "../evaluators/group-settings.js";
import { attributeValue, matchSpan, samplingDraw, type EvaluatorRule, type MatchableSpan, type MatchDecision } from "./matching.js";
import type { NormalisedSpan } from "./schemas.js";

/**
 * What a new span does to the trace and session evaluators' groups (docs/evaluation.md § Targets).
 * Pure: ingest (ingest-write.ts) writes the touches into GroupSchedule with the spans, in one statement.
 */

/** A trace or session evaluator as ingest reads it: its rule, target and resolved settings. */
export interface GroupEvaluatorRule extends EvaluatorRule {
  target: GroupTargetType;
  settings: GroupSettings;
}

/** One span's touch of one evaluator's group. */
export interface GroupTouch {
  /** The span's row id (the touch counts only when the span is new). */
  id: string;
  /** The evaluator. */
  e: string;
  /** trace or session. */
  tt: GroupTargetType;
  /** The group key: the trace id, or the span's session key; null: a session span without a key (it touches the sessions that hold its trace). */
  k: string | null;
  /** The span's trace id. */
  tr: string;
  /** The rule took the group on this span (matched and sampled): the group is created if new. Otherwise the touch only extends a group that exists. */
  m: boolean;
  /** The span ends the group (its end marker, or a trace's root with endOnRootSpan). */
  mk: boolean;
  /** The evaluator's quiet period and maximum wait (ms). */
  q: number;
  w: number;
}

/** The longest session key taken (characters); a longer value is no key (an index row holds at most ~2.7 KB). */
export const MAX_SESSION_KEY_LENGTH = 256;

/**
 * The session key of a span: the first of the evaluator's key attributes that holds a string (1 to
 * {@link MAX_SESSION_KEY_LENGTH} characters) or a finite number; null when none does.
 */
export function sessionKeyOf(attributes: unknown, keys: readonly string[]): string | null {
  for (const key of keys) {
    const value = attributeValue(attributes, key);
    if (typeof value === "string" && value !== "" && value.length <= MAX_SESSION_KEY_LENGTH) return value;
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
  }
  return null;
}

/**
 * The rule of a trace or session evaluator on one span: the rule's conditions as for a span
 * (kind, root, name, attributes, resource), but sampled per group — the draw is seeded by the
 * group key (SHA-256 of key, "", evaluator id), so every span of a group draws the same and a
 * group is taken or left whole. A session span without a session key is not matched (reason
 * `attributes`).
 */
export function matchGroupSpan(rule: GroupEvaluatorRule, span: MatchableSpan, options: { explain?: boolean } = {}): { decision: MatchDecision; key: string | null } {
  const key = rule.target === "trace" ? span.traceId : sessionKeyOf(span.attributes, rule.settings.sessionKeyAttributes);
  const unsampled = matchSpan({ ...rule, samplingRate: 1 }, span, options);
  if (!unsampled.matched) return { decision: unsampled, key };
  if (key === null) {
    return { decision: { matched: false, reason: "attributes", detail: `the span has none of the session key attributes ${rule.settings.sessionKeyAttributes.join(", ")} (a string of 1 to ${MAX_SESSION_KEY_LENGTH} characters, or a number)`, draw: unsampled.draw }, key };
  }
  const draw = samplingDraw(key, "", rule.id);
  if (draw < rule.samplingRate) return { decision: { ...unsampled, draw, detail: rule.samplingRate < 1 ? `matched and its ${rule.target} sampled (draw ${draw.toFixed(4)} < ${rule.samplingRate})` : "matched" }, key };
  return { decision: { matched: false, reason: "sampling", detail: `its ${rule.target} was left out by sampling: draw ${draw.toFixed(4)} is not below the rate ${rule.samplingRate}`, draw }, key };
}

/**
 * The touches of one new span for every enabled trace or session evaluator: one each, taken (the
 * rule matched) or not (it extends the group only if the group exists). Disabled evaluators touch nothing.
 */
export function groupTouchesOf(id: string, span: NormalisedSpan & { endTime?: Date | null }, rules: readonly GroupEvaluatorRule[]): { touches: GroupTouch[]; decisions: { evaluatorId: string; decision: MatchDecision }[] } {
  const touches: GroupTouch[] = [];
  const decisions: { evaluatorId: string; decision: MatchDecision }[] = [];
  for (const rule of rules) {
    const { decision, key } = matchGroupSpan(rule, span);
    decisions.push({ evaluatorId: rule.id, decision });
    if (!rule.enabled) continue;
    // A root counts as the end once it has ended (an exporter may send a root still open).
    const marker = isEndMarker(attributeValue(span.attributes, rule.settings.endMarkerAttribute)) || (rule.target === "trace" && rule.settings.endOnRootSpan && !span.parentSpanId && span.endTime != null);
    touches.push({ id, e: rule.id, tt: rule.target, k: key, tr: span.traceId, m: decision.matched, mk: marker, q: rule.settings.quietPeriodMs, w: rule.settings.maxWaitMs });
  }
  return { touches, decisions };
}
