import type { ItemResult, Score } from "../../execution/index.js";
import type { RunOutcome } from "../../lib/closed-lists.js";

/** Most characters of stdout, and of stderr, kept on a run (the sandbox already caps both together). */
export const MAX_CAPTURED_CHARS = 16 * 1024;

/** The closed list of run outcomes (declared in src/lib/closed-lists.ts). */
export { RUN_OUTCOMES, type RunOutcome } from "../../lib/closed-lists.js";

/** The start of the skip reason of a run left out by the evaluator's maxInvocationsPerHour (stats count it). */
export const INVOCATION_CAP_REASON = "maxInvocationsPerHour";

/** Outcomes caused by the evaluator's own code: recorded once, never retried. */
export const USER_FAULTS: readonly RunOutcome[] = ["user_error", "timeout", "memory_limit", "output_limit", "invalid_result"];

/** Text capped to `max` characters, with a note saying how much was cut. */
export function capText(text: string, max = MAX_CAPTURED_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [${text.length - max} more characters not kept]`;
}

/** Postgres refuses U+0000 in text and jsonb: it becomes U+FFFD (user code can print anything). */
export function withoutNul(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}

/** A JSON value with U+0000 replaced in every string (cheap when there is none). */
export function jsonWithoutNul<T>(value: T): T {
  const text = JSON.stringify(value);
  return text.includes("\\u0000") ? (JSON.parse(text.replaceAll("\\u0000", "\\ufffd")) as T) : value;
}

/** A score's value as a number for filters and aggregates: the number, 1/0 for a boolean, else null. */
export function numericValueOf(value: Score["value"]): number | null {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return null;
}

/** The columns of one stored score (without the run's ids). */
export interface ScoreColumns {
  position: number;
  name: string;
  dataType: string;
  value: Score["value"];
  numericValue: number | null;
  higherIsBetter: boolean;
  comment: string | null;
  metadata: Record<string, unknown> | null;
}

/** The scores of a result as rows, in the order written (the primary score first), U+0000 replaced. */
export function scoreColumns(scores: readonly Score[]): ScoreColumns[] {
  return scores.map((s, position) => ({
    position,
    name: withoutNul(s.name),
    dataType: s.data_type,
    value: typeof s.value === "string" ? withoutNul(s.value) : s.value,
    numericValue: numericValueOf(s.value),
    higherIsBetter: s.higher_is_better,
    comment: s.comment === null ? null : withoutNul(s.comment),
    metadata: s.metadata == null ? null : jsonWithoutNul(s.metadata as Record<string, unknown>),
  }));
}

/** The execution-record columns of a run from a sandbox result (the ids and timestamps are the caller's). */
export interface RunColumns {
  outcome: RunOutcome;
  stdout: string;
  stderr: string;
  errorType: string | null;
  errorMessage: string | null;
  errorTraceback: string | null;
  durationMs: number;
  scores: ScoreColumns[];
  /** The item printed more than the output cap: its output was cut (with a marker), its scores kept. */
  outputTruncated: boolean;
}

/** The start of the line the sandbox runner appends to stderr when it cut an item's output (sandbox/runner_output.py `truncation_marker`). */
export const TRUNCATION_MARKER = "[oodle: output truncated:";

/** Whether the sandbox cut this result's output (read before the output is capped again for storage). */
export function outputWasTruncated(result: Pick<ItemResult, "stderr">): boolean {
  return result.stderr.includes(TRUNCATION_MARKER);
}

/** The columns of a run that did not run (skipped, with its reason beside): no output, no scores. */
export const SKIPPED_COLUMNS: Readonly<RunColumns> = {
  outcome: "skipped", stdout: "", stderr: "", errorType: null, errorMessage: null, errorTraceback: null, durationMs: 0, scores: [], outputTruncated: false,
};

/**
 * A sandbox result as run columns, ready to store on either path (live or experiment): captured
 * output capped, the error split into type, message and user traceback, U+0000 replaced everywhere.
 */
export function runColumns(result: ItemResult): RunColumns {
  const error = result.error;
  return {
    outcome: result.outcome,
    stdout: withoutNul(capText(result.stdout)),
    stderr: withoutNul(capText(result.stderr)),
    errorType: error ? withoutNul(error.type) : null,
    errorMessage: error ? withoutNul(error.message) : null,
    errorTraceback: error?.traceback ? withoutNul(error.traceback) : null,
    durationMs: result.durationMs,
    scores: result.outcome === "ok" ? scoreColumns(result.scores) : [],
    outputTruncated: outputWasTruncated(result),
  };
}

/** What one judge run's model call cost (Run.usage). */
export interface RunUsage {
  /** The model that answered (or, from the cache, the model that answered then). */
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** US dollars from the price table; null when the model has no price or the server reported no usage (never guessed); 0 for a cache hit. */
  costUsd: number | null;
  /** Where the price came from: the workspace's override, the built-in table, or null (none). */
  priceSource: "workspace" | "builtin" | null;
  /** The answer came from the result cache (no call was made). */
  cached: boolean;
  /** The provider's time for the call, ms (0 for a cache hit). */
  providerMs: number;
}
