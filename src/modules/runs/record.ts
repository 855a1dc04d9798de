import type { ItemResult, Score } from "../../execution/index.js";

/** Most characters of stdout, and of stderr, kept on a run (the sandbox already caps both together). */
export const MAX_CAPTURED_CHARS = 16 * 1024;

/** The closed list of run outcomes: the sandbox's outcomes, plus `skipped` (not run, with a reason). */
export const RUN_OUTCOMES = ["ok", "user_error", "timeout", "memory_limit", "output_limit", "invalid_result", "sandbox_error", "skipped"] as const;

/** One run outcome. */
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** Outcomes caused by the evaluator's own code: recorded once, never retried. */
export const USER_FAULTS: readonly RunOutcome[] = ["user_error", "timeout", "memory_limit", "output_limit", "invalid_result"];

/** Text capped to `max` characters, with a note saying how much was cut. */
export function capText(text: string, max = MAX_CAPTURED_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [${text.length - max} more characters not kept]`;
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

/** The scores of a result as rows, in the order written (the primary score first). */
export function scoreColumns(scores: readonly Score[]): ScoreColumns[] {
  return scores.map((s, position) => ({
    position,
    name: s.name,
    dataType: s.data_type,
    value: s.value,
    numericValue: numericValueOf(s.value),
    higherIsBetter: s.higher_is_better,
    comment: s.comment,
    metadata: s.metadata as Record<string, unknown> | null,
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
}

/** A sandbox result as run columns: captured output capped, the error split into type, message and user traceback. */
export function runColumns(result: ItemResult): RunColumns {
  return {
    outcome: result.outcome,
    stdout: capText(result.stdout),
    stderr: capText(result.stderr),
    errorType: result.error?.type ?? null,
    errorMessage: result.error?.message ?? null,
    errorTraceback: result.error ? result.error.traceback || null : null,
    durationMs: result.durationMs,
    scores: result.outcome === "ok" ? scoreColumns(result.scores) : [],
  };
}
