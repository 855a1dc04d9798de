import { z } from "zod";
import type { GroupTargetType } from "../../lib/closed-lists.js";

/**
 * When a trace or a session is done, per evaluator (docs/evaluation.md § Targets), as data with
 * units in the names (`…Ms`: milliseconds). Tried in this order:
 * 1. an **end marker**: a span whose attribute `endMarkerAttribute` is `true` (or "true") runs the
 *    group at once; for a trace also the arrival of its root span when `endOnRootSpan` is set;
 * 2. a **sliding quiet period**: no new span in the group for `quietPeriodMs` (arrival times,
 *    the service's clock: senders' clocks and export delays do not move it);
 * 3. a **maximum wait**: `maxWaitMs` after the first span of the pending round arrived, it runs on
 *    what has arrived and says so (Run.completion `max_wait`).
 * Defaults follow the peers: a trace is done after 30 s of quiet (an agent's spans are exported
 * within seconds of each other), a conversation after 15 minutes (Opik's thread cooldown default).
 */
export interface CompletionSettings {
  quietPeriodMs: number;
  maxWaitMs: number;
  endMarkerAttribute: string;
  /** Traces only: the root span's arrival ends the trace (roots end, and are exported, last). */
  endOnRootSpan: boolean;
  /** Sessions only: the span attributes holding the session key, the first present wins. */
  sessionKeyAttributes: string[];
}

/** One duration's floor, default and ceiling (ms). */
interface DurationSpec {
  floor: number;
  default: number;
  ceiling: number;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Floors, defaults and ceilings of the durations, per group target. */
export const COMPLETION_SPECS: Readonly<Record<GroupTargetType, { quietPeriodMs: DurationSpec; maxWaitMs: DurationSpec }>> = {
  trace: { quietPeriodMs: { floor: 1 * SECOND, default: 30 * SECOND, ceiling: 1 * HOUR }, maxWaitMs: { floor: 1 * SECOND, default: 10 * MINUTE, ceiling: 1 * DAY } },
  session: { quietPeriodMs: { floor: 1 * SECOND, default: 15 * MINUTE, ceiling: 1 * DAY }, maxWaitMs: { floor: 1 * SECOND, default: 4 * HOUR, ceiling: 7 * DAY } },
};

/** The end-marker attribute by default: `oodle.trace.end` / `oodle.session.end` (this service's namespace; no convention names one). */
export const DEFAULT_END_MARKER: Readonly<Record<GroupTargetType, string>> = { trace: "oodle.trace.end", session: "oodle.session.end" };

/**
 * The session key by default: OpenInference's `session.id`, then the OpenTelemetry GenAI
 * conventions' `gen_ai.conversation.id`.
 */
export const DEFAULT_SESSION_KEYS = ["session.id", "gen_ai.conversation.id"] as const;

const attributeKey = z.string().min(1, "must not be empty").max(256, "must be at most 256 characters");

/** What an evaluator may ask (Evaluator.groupSettings): every key optional; checked against the target by {@link resolveCompletion}. */
export const completionInputSchema = z
  .object({
    quietPeriodMs: z.number().int("must be a whole number of milliseconds").optional(),
    maxWaitMs: z.number().int("must be a whole number of milliseconds").optional(),
    endMarkerAttribute: attributeKey.optional(),
    endOnRootSpan: z.boolean().optional(),
    sessionKeyAttribute: attributeKey.optional(),
  })
  .strict();
/** Completion settings as asked. */
export type CompletionInput = z.infer<typeof completionInputSchema>;

/** Thrown for a setting outside its range or that does not apply to the target; `field` names it. */
export class GroupSettingError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "GroupSettingError";
  }
}

/** A duration in words for messages: 30 s, 15 min, 4 h, 7 d. */
export function formatDuration(ms: number): string {
  if (ms % DAY === 0) return `${ms / DAY} d`;
  if (ms % HOUR === 0) return `${ms / HOUR} h`;
  if (ms % MINUTE === 0) return `${ms / MINUTE} min`;
  if (ms % SECOND === 0) return `${ms / SECOND} s`;
  return `${ms} ms`;
}

/**
 * The completion rules of a trace or session evaluator: what it asked, each absent key its default.
 * @throws GroupSettingError naming the field: a duration under its floor or over its ceiling, a
 *   maximum wait shorter than the quiet period, `endOnRootSpan` on a session or `sessionKeyAttribute` on a trace.
 */
export function resolveCompletion(target: GroupTargetType, asked: CompletionInput): CompletionSettings {
  const specs = COMPLETION_SPECS[target];
  const duration = (field: "quietPeriodMs" | "maxWaitMs"): number => {
    const spec = specs[field];
    const value = asked[field] ?? spec.default;
    if (value < spec.floor || value > spec.ceiling) {
      throw new GroupSettingError(field, `${field} of a ${target} evaluator must be between ${spec.floor} (${formatDuration(spec.floor)}) and ${spec.ceiling} (${formatDuration(spec.ceiling)}); got ${value}`);
    }
    return value;
  };
  const quietPeriodMs = duration("quietPeriodMs");
  const maxWaitMs = duration("maxWaitMs");
  if (maxWaitMs < quietPeriodMs) throw new GroupSettingError("maxWaitMs", `maxWaitMs (${maxWaitMs}) must not be shorter than quietPeriodMs (${quietPeriodMs}): the quiet period would never end a group`);
  if (target === "session" && asked.endOnRootSpan !== undefined) throw new GroupSettingError("endOnRootSpan", "endOnRootSpan applies to trace evaluators only (a session has many roots)");
  if (target === "trace" && asked.sessionKeyAttribute !== undefined) throw new GroupSettingError("sessionKeyAttribute", "sessionKeyAttribute applies to session evaluators only");
  return {
    quietPeriodMs,
    maxWaitMs,
    endMarkerAttribute: asked.endMarkerAttribute ?? DEFAULT_END_MARKER[target],
    endOnRootSpan: asked.endOnRootSpan ?? false,
    sessionKeyAttributes: asked.sessionKeyAttribute ? [asked.sessionKeyAttribute] : [...DEFAULT_SESSION_KEYS],
  };
}

/** True when an attribute value is the end marker: `true`, or the string "true" (SDKs without booleans). */
export function isEndMarker(value: unknown): boolean {
  return value === true || value === "true";
}
