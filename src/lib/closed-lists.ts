import { OUTCOMES } from "./outcomes.js";

/**
 * The closed lists of the data model, one `const` each. Every one is, from this declaration, a
 * GraphQL enum (src/graphql/enums.ts, values spelled as here), a CHECK constraint on its column
 * (prisma/migrations/…_closed_lists_checks; test/foundation/closed-lists.test.ts keeps them equal)
 * and the zod enum of the inputs that take it.
 */

/** How a run ended: the sandbox's outcomes (src/lib/outcomes.ts), plus `skipped` (not run, with a reason). */
export const RUN_OUTCOMES = [...OUTCOMES, "skipped"] as const;
/** One run outcome. */
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/**
 * Why a run was replaced (RunHistory.reason), one policy on every path: the replaced run moves to
 * RunHistory in the transaction that replaces it. `backfill_rerun`: a backfill ran its evaluator
 * again; `inputs_changed`: a dependency's run changed, so the dependent ran again;
 * `scores_reposted`: an external evaluator's scores were posted again; `retried`: an experiment's
 * failed runs were run again (retryFailed); `group_changed`: spans arrived in a trace or session
 * after it was evaluated, so its evaluator ran on it again (src/modules/groups).
 */
export const RUN_REPLACE_REASONS = ["backfill_rerun", "inputs_changed", "scores_reposted", "retried", "group_changed"] as const;
/** One replace reason. */
export type RunReplaceReason = (typeof RUN_REPLACE_REASONS)[number];

/**
 * What an evaluator runs on (Evaluator.target), and what a live evaluation is about (the
 * `evaluate-target` queue's payloads, OwedEvaluation.targetType): one span; a whole trace (every
 * span sharing a trace id); or a session (the traces sharing a session key: `session.id` or
 * `gen_ai.conversation.id`, or an attribute the evaluator names). docs/evaluation.md § Targets.
 */
export const TARGET_TYPES = ["span", "trace", "session"] as const;
/** One target type. */
export type TargetType = (typeof TARGET_TYPES)[number];
/** The targets made of many spans: a trace and a session (src/modules/groups). */
export const GROUP_TARGET_TYPES = ["trace", "session"] as const;
/** One group target type. */
export type GroupTargetType = (typeof GROUP_TARGET_TYPES)[number];

/**
 * Why a trace or session run ran when it did (Run.completion), in the order they are tried: an
 * end marker arrived (`end_marker`); no new span for the quiet period (`quiet_period`); the
 * maximum wait after the group's first pending span passed (`max_wait`: it ran on what had arrived).
 */
export const GROUP_COMPLETIONS = ["end_marker", "quiet_period", "max_wait"] as const;
/** One group completion. */
export type GroupCompletion = (typeof GROUP_COMPLETIONS)[number];

/**
 * Which spans of a trace or session must pass a trace or session evaluator's gate
 * (EvaluatorDependency.gateSpans): `any` (at least one span where the dependency ran) or `all`
 * (every such span, and there is at least one).
 */
export const GATE_SPANS = ["any", "all"] as const;
/** One gate span rule. */
export type GateSpans = (typeof GATE_SPANS)[number];

/** The kinds of span (of the span model): what an evaluator's rule can ask for. */
export const SPAN_KINDS = ["chat", "tool", "agent", "retrieval", "other"] as const;
/** One span kind. */
export type SpanKind = (typeof SPAN_KINDS)[number];

/** The status codes of a span (OpenTelemetry's). */
export const SPAN_STATUSES = ["unset", "ok", "error"] as const;
/** One span status. */
export type SpanStatus = (typeof SPAN_STATUSES)[number];

/** The kinds of evaluator: `code` runs its template in the sandbox; `external` has its scores posted; `judge` sends its LLM template to a connection's model. */
export const EVALUATOR_KINDS = ["code", "external", "judge"] as const;
/** One evaluator kind. */
export type EvaluatorKind = (typeof EVALUATOR_KINDS)[number];

/** How an evaluator's items run: `warm` (many per runner, a fresh namespace each) or `strict` (a fresh forked process per item). */
export const ISOLATIONS = ["warm", "strict"] as const;
/** One isolation. */
export type Isolation = (typeof ISOLATIONS)[number];

/** The states of an experiment. */
export const EXPERIMENT_STATUSES = ["queued", "running", "completed", "cancelled"] as const;
/** One experiment status. */
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

/** Why an evaluator is part of an experiment: named by the caller, a template run with its defaults, or a dependency of one of those. */
export const EXPERIMENT_EVALUATOR_SOURCES = ["evaluator", "template", "dependency"] as const;
/** One experiment-evaluator source. */
export type ExperimentEvaluatorSource = (typeof EXPERIMENT_EVALUATOR_SOURCES)[number];

/** How a score's value reads: true/false, a number, or a category (a string). */
export const SCORE_DATA_TYPES = ["BOOLEAN", "NUMERIC", "CATEGORICAL"] as const;
/** One score data type. */
export type ScoreDataType = (typeof SCORE_DATA_TYPES)[number];

/** The entry point a template defines: `evaluate(ctx)`, Open Chat Studio's `main(...)`, an Opik BaseMetric class, or `judge` (an LLM template: its messages). */
export const ENTRY_POINT_KINDS = ["evaluate", "main", "opik", "judge"] as const;
/** One entry-point kind. */
export type EntryPointKind = (typeof ENTRY_POINT_KINDS)[number];

/** The kinds of template: `code` (Python, run in the sandbox) or `llm` (a judge's chat messages, sent to a model). */
export const TEMPLATE_KINDS = ["code", "llm"] as const;
/** One template kind. */
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];


/** What a monitor measures over its window (src/modules/monitors, docs/monitors.md § Metrics). */
export const MONITOR_METRICS = ["pass_rate", "mean", "percentile", "count", "not_ok_share", "backlog_age"] as const;
/** One monitor metric. */
export type MonitorMetric = (typeof MONITOR_METRICS)[number];

/** How a monitor decides: a fixed threshold, or a significant drop against a baseline. */
export const MONITOR_CONDITIONS = ["threshold", "drop"] as const;
/** One monitor condition. */
export type MonitorCondition = (typeof MONITOR_CONDITIONS)[number];

/** What a drop is measured against: the window before, the same window a week before, or the evaluator's previous template version over the same window. */
export const MONITOR_BASELINES = ["previous_window", "week_before", "previous_version"] as const;
/** One monitor baseline. */
export type MonitorBaseline = (typeof MONITOR_BASELINES)[number];

/** The states of a monitor. */
export const MONITOR_STATES = ["OK", "WARNING", "ALERT", "NO_DATA"] as const;
/** One monitor state. */
export type MonitorState = (typeof MONITOR_STATES)[number];

/** The states a drop fires with. */
export const MONITOR_SEVERITIES = ["WARNING", "ALERT"] as const;
/** One drop severity. */
export type MonitorSeverity = (typeof MONITOR_SEVERITIES)[number];

/** What changed a monitor's state: an evaluation, or a person resolving it. */
export const MONITOR_TRANSITION_CAUSES = ["evaluation", "resolved_by_hand"] as const;
/** One transition cause. */
export type MonitorTransitionCause = (typeof MONITOR_TRANSITION_CAUSES)[number];

/** Where alerts go: a signed webhook, or a Slack incoming webhook. */
export const ALERT_DESTINATION_KINDS = ["webhook", "slack"] as const;
/** One destination kind. */
export type AlertDestinationKind = (typeof ALERT_DESTINATION_KINDS)[number];

/** What a delivery tells: a monitor started firing, resolved, is still firing (renotify), or a test. */
export const ALERT_EVENTS = ["firing", "resolved", "renotify", "test"] as const;
/** One alert event. */
export type AlertEvent = (typeof ALERT_EVENTS)[number];

/** The states of a backfill (CHECK constraint: prisma/migrations/…_backfill_status_check, whose comment still names its old home). */
export const BACKFILL_STATUSES = ["queued", "running", "completed", "cancelled", "failed"] as const;
/** One backfill status. */
export type BackfillStatus = (typeof BACKFILL_STATUSES)[number];

/** Where a delivery stands: pending (attempts left), delivered, or failed (out of attempts). */
export const ALERT_DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
/** One delivery status. */
export type AlertDeliveryStatus = (typeof ALERT_DELIVERY_STATUSES)[number];

/**
 * The providers a connection speaks to (Connection.provider, src/modules/connections):
 * `openai` is any OpenAI-compatible chat-completions API (OpenAI, Azure OpenAI, vLLM, Ollama,
 * LM Studio, llama.cpp's server), `anthropic` the Anthropic messages API.
 */
export const CONNECTION_PROVIDERS = ["openai", "anthropic"] as const;
/** One connection provider. */
export type ConnectionProvider = (typeof CONNECTION_PROVIDERS)[number];

/**
 * Why testConnection failed (not stored): `invalid_key` (401), `permission_denied` (403),
 * `unknown_model` (404), `rate_limited` (429), `quota_exhausted` (429 insufficient_quota: the account has no credit), `unreachable` (no answer: DNS, refused, TLS),
 * `private_address` (the base URL is or resolves to a private or loopback address, refused unless
 * CONNECTION_ALLOW_PRIVATE_DESTINATIONS), `timeout` (no answer in time), `provider_error` (any other answer).
 */
export const CONNECTION_ERROR_CODES = ["invalid_key", "permission_denied", "unknown_model", "rate_limited", "quota_exhausted", "unreachable", "private_address", "timeout", "provider_error"] as const;
/** One connection test error code. */
export type ConnectionErrorCode = (typeof CONNECTION_ERROR_CODES)[number];

/**
 * Where the price of a model comes from (not stored; src/modules/judges/prices.ts): `workspace`,
 * the workspace's own row (ModelPrice, set with setModelPrice); `builtin`, the built-in table of
 * the providers' list prices.
 */
export const MODEL_PRICE_SOURCES = ["workspace", "builtin"] as const;
/** One model price source. */
export type ModelPriceSource = (typeof MODEL_PRICE_SOURCES)[number];

/** The monitors' closed columns (their CHECK constraints: prisma/migrations/…_add_monitors). */
export const MONITOR_CLOSED_COLUMNS = [
  { table: "Monitor", column: "metric", values: MONITOR_METRICS },
  { table: "Monitor", column: "condition", values: MONITOR_CONDITIONS },
  { table: "Monitor", column: "baseline", values: MONITOR_BASELINES },
  { table: "Monitor", column: "dropSeverity", values: MONITOR_SEVERITIES },
  { table: "Monitor", column: "state", values: MONITOR_STATES },
  { table: "Monitor", column: "notifiedState", values: MONITOR_STATES },
  { table: "MonitorEvaluation", column: "state", values: MONITOR_STATES },
  { table: "MonitorTransition", column: "fromState", values: MONITOR_STATES },
  { table: "MonitorTransition", column: "toState", values: MONITOR_STATES },
  { table: "MonitorTransition", column: "cause", values: MONITOR_TRANSITION_CAUSES },
  { table: "AlertDestination", column: "kind", values: ALERT_DESTINATION_KINDS },
  { table: "AlertDelivery", column: "event", values: ALERT_EVENTS },
  { table: "AlertDelivery", column: "status", values: ALERT_DELIVERY_STATUSES },
] as const;

/** Every closed list by the table and column that holds it (the CHECK constraints). */
export const CLOSED_COLUMNS = [
  { table: "Run", column: "outcome", values: RUN_OUTCOMES },
  { table: "RunHistory", column: "outcome", values: RUN_OUTCOMES },
  { table: "RunHistory", column: "reason", values: RUN_REPLACE_REASONS },
  { table: "Span", column: "kind", values: SPAN_KINDS },
  { table: "Span", column: "status", values: SPAN_STATUSES },
  { table: "Evaluator", column: "kind", values: EVALUATOR_KINDS },
  { table: "Evaluator", column: "spanKind", values: SPAN_KINDS },
  { table: "Evaluator", column: "isolation", values: ISOLATIONS },
  { table: "Experiment", column: "status", values: EXPERIMENT_STATUSES },
  { table: "ExperimentEvaluator", column: "source", values: EXPERIMENT_EVALUATOR_SOURCES },
  { table: "Score", column: "dataType", values: SCORE_DATA_TYPES },
  { table: "TemplateVersion", column: "entryPointKind", values: ENTRY_POINT_KINDS },
  { table: "Backfill", column: "status", values: BACKFILL_STATUSES },
  { table: "OwedEvaluation", column: "targetType", values: TARGET_TYPES },
  { table: "Evaluator", column: "target", values: TARGET_TYPES },
  { table: "GroupSchedule", column: "targetType", values: GROUP_TARGET_TYPES },
  { table: "Run", column: "completion", values: GROUP_COMPLETIONS },
  { table: "RunHistory", column: "completion", values: GROUP_COMPLETIONS },
  { table: "EvaluatorDependency", column: "gateSpans", values: GATE_SPANS },
  { table: "Connection", column: "provider", values: CONNECTION_PROVIDERS },
  { table: "Template", column: "kind", values: TEMPLATE_KINDS },
  ...MONITOR_CLOSED_COLUMNS,
] as const;
