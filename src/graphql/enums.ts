import {
  CONNECTION_ERROR_CODES,
  CONNECTION_PROVIDERS,
  ENTRY_POINT_KINDS,
  EVALUATOR_KINDS,
  EXPERIMENT_EVALUATOR_SOURCES,
  EXPERIMENT_STATUSES,
  GROUP_COMPLETIONS,
  GATE_SPANS,
  ISOLATIONS,
  MODEL_PRICE_SOURCES,
  RUN_OUTCOMES,
  RUN_REPLACE_REASONS,
  SCORE_DATA_TYPES,
  SPAN_KINDS,
  SPAN_STATUSES,
  TARGET_TYPES,
  TEMPLATE_KINDS,
} from "../lib/closed-lists.js";
import { builder } from "./builder.js";

// The closed lists of src/lib/closed-lists.ts as GraphQL enums. Values are spelled as stored
// (`user_error`, `chat`, `BOOLEAN`), so JSON answers and variables keep the same strings; in a
// query document an enum value is written unquoted (`runs(outcome: user_error)`).

/** How a run ended. */
export const RunOutcomeEnum = builder.enumType("RunOutcome", {
  description: "How a run ended: ok; user_error (it raised); timeout; memory_limit; output_limit; invalid_result (broke the Score rules); sandbox_error (never the user's fault); skipped (not run, see skipReason).",
  values: RUN_OUTCOMES,
});

/** Why a run was replaced (RunHistory.reason). */
export const RunReplaceReasonEnum = builder.enumType("RunReplaceReason", {
  description: "Why a run was replaced and kept in history: backfill_rerun (a backfill ran it again); inputs_changed (a dependency's run changed, so it ran again); scores_reposted (an external evaluator's scores were posted again); retried (an experiment's failed runs were run again); group_changed (spans arrived in a trace or session after it was evaluated, so it ran again).",
  values: RUN_REPLACE_REASONS,
});

/** What an evaluator runs on. */
export const EvaluationTargetEnum = builder.enumType("EvaluationTarget", {
  description: "What an evaluator runs on: span (each matching span, as it arrives); trace (a whole trace, once it is done); session (a whole conversation: the traces sharing a session key, once it is done).",
  values: TARGET_TYPES,
});

/** Why a trace or session run ran when it did. */
export const GroupCompletionEnum = builder.enumType("GroupCompletion", {
  description: "Why a trace or session run ran when it did: end_marker (a span carried the end marker); quiet_period (no new span for the quiet period); max_wait (the maximum wait after the first pending span passed: it ran on what had arrived).",
  values: GROUP_COMPLETIONS,
});

/** Which spans of a trace or session must pass a gate. */
export const GateSpansEnum = builder.enumType("GateSpans", {
  description: "Which spans of a trace or session must pass a trace or session evaluator's gate: any (at least one span where the dependency ran) or all (every span where it ran, and there is at least one).",
  values: GATE_SPANS,
});

/** The kind of a span. */
export const SpanKindEnum = builder.enumType("SpanKind", {
  description: "The kind of a span: chat (has messages), tool, agent, retrieval or other.",
  values: SPAN_KINDS,
});

/** The status of a span. */
export const SpanStatusEnum = builder.enumType("SpanStatus", {
  description: "A span's status code (OpenTelemetry's): unset, ok or error.",
  values: SPAN_STATUSES,
});

/** The kind of an evaluator. */
export const EvaluatorKindEnum = builder.enumType("EvaluatorKind", {
  description: "code: runs its template in the sandbox; external: its scores are posted with submitScores.",
  values: EVALUATOR_KINDS,
});

/** How an evaluator's items run. */
export const IsolationEnum = builder.enumType("Isolation", {
  description: "warm: many items per sandboxed runner, a fresh namespace each; strict: a fresh forked process per item, slower.",
  values: ISOLATIONS,
});

/** The state of an experiment. */
export const ExperimentStatusEnum = builder.enumType("ExperimentStatus", {
  description: "The state of an experiment: queued, running, completed or cancelled.",
  values: EXPERIMENT_STATUSES,
});

/** Why an evaluator is in an experiment. */
export const ExperimentEvaluatorSourceEnum = builder.enumType("ExperimentEvaluatorSource", {
  description: "evaluator: named by the caller; template: a template run with its defaults (an archived evaluator made for it); dependency: added because a listed evaluator depends on it.",
  values: EXPERIMENT_EVALUATOR_SOURCES,
});

/** How a score's value reads. */
export const ScoreDataTypeEnum = builder.enumType("ScoreDataType", {
  description: "How a score's value reads: BOOLEAN (true/false), NUMERIC (a number) or CATEGORICAL (a string).",
  values: SCORE_DATA_TYPES,
});

/** The entry point of a template. */
export const EntryPointKindEnum = builder.enumType("EntryPointKind", {
  description: "evaluate: evaluate(ctx); main: Open Chat Studio's main(input, output, context, ...); opik: an Opik BaseMetric class; judge: an llm template's messages.",
  values: ENTRY_POINT_KINDS,
});

export const TemplateKindEnum = builder.enumType("TemplateKind", {
  description: "code: Python run in the sandbox; llm: a judge whose chat messages are sent to a connection's model (docs/judges.md).",
  values: TEMPLATE_KINDS,
});

/** The provider of a connection. */
export const ConnectionProviderEnum = builder.enumType("ConnectionProvider", {
  description: "openai: any OpenAI-compatible chat-completions API (OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio, llama.cpp's server); anthropic: the Anthropic messages API.",
  values: CONNECTION_PROVIDERS,
});

/** Why a connection test failed. */
export const ConnectionErrorCodeEnum = builder.enumType("ConnectionErrorCode", {
  description: "Why testConnection failed: invalid_key (HTTP 401); permission_denied (403); unknown_model (404: the model does not exist or the key may not use it); rate_limited (429, see retryAfterSeconds); unreachable (no answer: DNS, connection refused, TLS); timeout (no answer in time); provider_error (any other answer).",
  values: CONNECTION_ERROR_CODES,
});

/** Where a model's price comes from. */
export const ModelPriceSourceEnum = builder.enumType("ModelPriceSource", {
  description: "workspace: the workspace's own price (setModelPrice), which replaces the built-in one of the same model; builtin: the built-in table of the providers' public list prices.",
  values: MODEL_PRICE_SOURCES,
});
