/**
 * A run's scores as OpenTelemetry `gen_ai.evaluation.result` events (GenAI semantic conventions,
 * "Event: gen_ai.evaluation.result"): one event per score, with
 *  - `gen_ai.evaluation.name` — the score's name;
 *  - `gen_ai.evaluation.score.value` — a NUMERIC score's value; a BOOLEAN one as 1 / 0;
 *  - `gen_ai.evaluation.score.label` — a CATEGORICAL score's value; for a BOOLEAN one "pass" or
 *    "fail" in the score's direction (`combine.passed`: true passes when higher is better);
 *  - `gen_ai.evaluation.explanation` — the score's comment;
 *  - `gen_ai.response.id` — the evaluated span's, when it has one;
 *  - `oodle.evaluator.name`, `oodle.run.id`, `oodle.run.outcome`, and `oodle.backfill.id` for a
 *    run a backfill made.
 * A run that failed (no scores: user error, timeout, …) gives one event named after the
 * evaluator with `error.type` = its outcome. The event carries the evaluated span's trace and
 * span ids when they are OpenTelemetry ids (32 / 16 hex digits), so a backend shows it on the span.
 * Pure.
 */
import { scorePasses } from "../dependencies/passed.js";

/** The event name of the conventions. */
export const EVALUATION_EVENT = "gen_ai.evaluation.result";

/** What the events are made from: a committed run, its scores, its evaluator and span. */
export interface RunForEvents {
  id: string;
  outcome: string;
  errorType: string | null;
  /** The backfill that made the run (null or absent: a live run). */
  backfillId?: string | null;
  finishedAt: Date | null;
  evaluator: { name: string };
  span: { traceId: string; spanId: string; attributes: unknown } | null;
  scores: { name: string; value: unknown; dataType: string; higherIsBetter: boolean; comment: string | null }[];
}

/** One event: attributes, time and the span it belongs to. */
export interface EvaluationEvent {
  attributes: Record<string, string | number | boolean>;
  timestamp: Date;
  /** Set when the span's ids are OpenTelemetry ids. */
  spanContext?: { traceId: string; spanId: string };
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** The events of a run (see the module comment). */
export function evaluationEvents(run: RunForEvents): EvaluationEvent[] {
  const attrs = (run.span?.attributes ?? {}) as Record<string, unknown>;
  const responseId = typeof attrs["gen_ai.response.id"] === "string" ? (attrs["gen_ai.response.id"] as string) : undefined;
  const base: Record<string, string | number | boolean> = {
    "oodle.evaluator.name": run.evaluator.name,
    "oodle.run.id": run.id,
    "oodle.run.outcome": run.outcome,
    ...(run.backfillId ? { "oodle.backfill.id": run.backfillId } : {}),
    ...(responseId ? { "gen_ai.response.id": responseId } : {}),
  };
  const span = run.span;
  const spanContext = span && TRACE_ID.test(span.traceId) && SPAN_ID.test(span.spanId) ? { traceId: span.traceId, spanId: span.spanId } : undefined;
  const timestamp = run.finishedAt ?? new Date();
  const event = (attributes: Record<string, string | number | boolean>): EvaluationEvent => ({ attributes: { ...base, ...attributes }, timestamp, ...(spanContext ? { spanContext } : {}) });
  if (run.outcome !== "ok" && run.scores.length === 0) {
    if (run.outcome === "skipped") return [];
    return [event({ "gen_ai.evaluation.name": run.evaluator.name, "error.type": run.errorType ?? run.outcome })];
  }
  return run.scores.map((score) => {
    const out: Record<string, string | number | boolean> = { "gen_ai.evaluation.name": score.name };
    if (score.dataType === "BOOLEAN" && typeof score.value === "boolean") {
      out["gen_ai.evaluation.score.value"] = score.value ? 1 : 0;
      out["gen_ai.evaluation.score.label"] = scorePasses({ dataType: score.dataType, numericValue: score.value ? 1 : 0, higherIsBetter: score.higherIsBetter }) ? "pass" : "fail";
    } else if (typeof score.value === "number") {
      out["gen_ai.evaluation.score.value"] = score.value;
    } else if (typeof score.value === "string") {
      out["gen_ai.evaluation.score.label"] = score.value;
    }
    if (score.comment) out["gen_ai.evaluation.explanation"] = score.comment;
    return event(out);
  });
}
