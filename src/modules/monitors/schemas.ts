import { z } from "zod";
import {
  ALERT_DELIVERY_STATUSES,
  ALERT_DESTINATION_KINDS,
  MONITOR_BASELINES,
  MONITOR_CONDITIONS,
  MONITOR_METRICS,
  MONITOR_SEVERITIES,
  MONITOR_STATES,
  type MonitorMetric,
} from "../../lib/closed-lists.js";
import { typeError } from "../../lib/validation.js";

/** Shared input schemas of the monitors feature (GraphQL, CLI and MCP use the same). */

/** The shortest and longest window (5 minutes, 7 days), in seconds. */
export const MIN_WINDOW_SECONDS = 300;
export const MAX_WINDOW_SECONDS = 7 * 24 * 3600;
/** The shortest and longest cadence (1 minute, 1 day), in seconds. */
export const MIN_CADENCE_SECONDS = 60;
export const MAX_CADENCE_SECONDS = 24 * 3600;
/** Monitors a workspace may have. */
export const MAX_MONITORS_PER_WORKSPACE = 1_000;
/** Destinations a monitor may send to. */
export const MAX_DESTINATIONS_PER_MONITOR = 10;

/** Metrics read from one score name of the evaluator (they need `scoreName`). */
export const SCORE_METRICS: readonly MonitorMetric[] = ["pass_rate", "mean", "percentile"];
/** Metrics a drop is tested on: proportions with the two-proportion z-test, means with Welch's t. */
export const DROP_METRICS: readonly MonitorMetric[] = ["pass_rate", "mean", "not_ok_share"];
/** Metrics that always have a value (an empty window counts 0; a backlog is read now): no NO_DATA, no minCount. */
export const ALWAYS_VALUED_METRICS: readonly MonitorMetric[] = ["count", "backlog_age"];
/** Metrics on the 0–1 scale (their levels and minEffect too). */
export const SHARE_METRICS: readonly MonitorMetric[] = ["pass_rate", "not_ok_share"];

const whole = (what: string) => z.number({ error: typeError(what) }).int("must be a whole number");
const level = z.number({ error: typeError("a number") }).refine(Number.isFinite, "must be a finite number");

/** The fields of a monitor a caller sets (createMonitor; updateMonitor takes each as optional). */
export const monitorFields = {
  name: z.string({ error: typeError("a string") }).trim().min(1, "must not be empty").max(200, "must be at most 200 characters").describe("Unique in the workspace."),
  description: z.string({ error: typeError("a string") }).max(2000, "must be at most 2000 characters").describe("What it watches and what to do when it fires (sent with each event)."),
  evaluatorId: z.string({ error: typeError("an evaluator id") }).describe("The evaluator whose live runs (on spans, live or backfill) it watches."),
  scoreName: z.string({ error: typeError("a string") }).min(1, "must not be empty").max(100, "must be at most 100 characters").nullable().describe("The score watched: required for pass_rate, mean and percentile; for count, its scores are counted instead of runs."),
  metric: z.enum(MONITOR_METRICS, { error: `must be one of ${MONITOR_METRICS.join(", ")}` }).describe("pass_rate (share of the score's values that pass, docs/scores.md § The passed rule), mean, percentile, count (runs, or scores of scoreName), not_ok_share (share of runs that ran and failed: outcome neither ok nor skipped), backlog_age (seconds the evaluator's oldest queued live evaluation has waited)."),
  percentile: z.number({ error: typeError("a number") }).gt(0, "must be above 0").lt(100, "must be below 100").nullable().describe("metric percentile: which one, above 0 and below 100 (95 = p95, continuous interpolation)."),
  windowSeconds: whole("a whole number of seconds").min(MIN_WINDOW_SECONDS, `must be at least ${MIN_WINDOW_SECONDS} (5 minutes)`).max(MAX_WINDOW_SECONDS, `must be at most ${MAX_WINDOW_SECONDS} (7 days)`).describe("The window read at each evaluation, in seconds: 300 (5 minutes) to 604800 (7 days)."),
  cadenceSeconds: whole("a whole number of seconds").min(MIN_CADENCE_SECONDS, `must be at least ${MIN_CADENCE_SECONDS}`).max(MAX_CADENCE_SECONDS, `must be at most ${MAX_CADENCE_SECONDS} (1 day)`).describe("Evaluated every this many seconds (60 to 86400), at window ends on multiples of it since the epoch (UTC)."),
  condition: z.enum(MONITOR_CONDITIONS, { error: `must be one of ${MONITOR_CONDITIONS.join(", ")}` }).describe("threshold: warningLevel / alertLevel; drop: a significant change for the worse against the baseline."),
  warningLevel: level.nullable().describe("threshold: WARNING past this level. The bad side is not typed: below for pass_rate, count, and a mean or percentile of a score with higherIsBetter; above for not_ok_share, backlog_age and lower-is-better scores."),
  alertLevel: level.nullable().describe("threshold: ALERT past this level (same side as warningLevel)."),
  baseline: z.enum(MONITOR_BASELINES, { error: `must be one of ${MONITOR_BASELINES.join(", ")}` }).nullable().describe("drop: previous_window (the window just before), week_before (the same window 7 days earlier) or previous_version (the runs of the evaluator's previous template version in the same window)."),
  minEffect: z.number({ error: typeError("a number") }).gt(0, "must be above 0").nullable().describe("drop: the smallest change for the worse that fires, in the metric's unit (0.05 = 5 points of pass rate)."),
  maxPValue: z.number({ error: typeError("a number") }).gt(0, "must be above 0").lt(1, "must be below 1").describe("drop: fires only when the one-sided p-value is below this (default 0.05)."),
  dropSeverity: z.enum(MONITOR_SEVERITIES, { error: `must be one of ${MONITOR_SEVERITIES.join(", ")}` }).describe("drop: the state it fires with, WARNING or ALERT (default ALERT)."),
  minSampleSize: whole("a whole number").min(2, "must be at least 2").max(1_000_000, "must be at most 1000000").describe("drop: both sides need this many values, else the drop is not tested (default 30)."),
  minCount: whole("a whole number").min(1, "must be at least 1").max(1_000_000, "must be at most 1000000").describe("Fewer values than this in the window: NO_DATA (default 1). Not for count and backlog_age, which always have a value."),
  renotifySeconds: whole("a whole number of seconds").min(60, "must be at least 60").max(MAX_WINDOW_SECONDS, `must be at most ${MAX_WINDOW_SECONDS}`).nullable().describe("While WARNING, ALERT or NO_DATA, tell the destinations again after this many seconds (null: once per change)."),
  enabled: z.boolean({ error: typeError("true or false") }).describe("Disabled: not evaluated (default true)."),
  destinationIds: z.array(z.string({ error: typeError("a destination id") }), { error: typeError("a list of destination ids") }).max(MAX_DESTINATIONS_PER_MONITOR, `must have at most ${MAX_DESTINATIONS_PER_MONITOR} destinations`).describe("Where its events go (alert destinations of the workspace)."),
};

/** The input of createMonitor. */
export const createMonitorInputSchema = z
  .object({
    ...monitorFields,
    description: monitorFields.description.optional(),
    scoreName: monitorFields.scoreName.optional(),
    percentile: monitorFields.percentile.optional(),
    warningLevel: monitorFields.warningLevel.optional(),
    alertLevel: monitorFields.alertLevel.optional(),
    baseline: monitorFields.baseline.optional(),
    minEffect: monitorFields.minEffect.optional(),
    maxPValue: monitorFields.maxPValue.optional(),
    dropSeverity: monitorFields.dropSeverity.optional(),
    minSampleSize: monitorFields.minSampleSize.optional(),
    minCount: monitorFields.minCount.optional(),
    renotifySeconds: monitorFields.renotifySeconds.optional(),
    enabled: monitorFields.enabled.optional(),
    destinationIds: monitorFields.destinationIds.optional(),
  })
  .strict();
/** A createMonitor input. */
export type CreateMonitorInput = z.input<typeof createMonitorInputSchema>;

/** The input of updateMonitor: the id and the fields to change (null clears an optional one). */
export const updateMonitorInputSchema = z
  .object({
    id: z.string({ error: typeError("a monitor id") }),
    ...Object.fromEntries(Object.entries(monitorFields).map(([k, v]) => [k, (v as z.ZodType).optional()])),
  })
  .strict() as unknown as z.ZodObject<{ id: z.ZodString } & { [K in keyof typeof monitorFields]: z.ZodOptional<(typeof monitorFields)[K]> }>;

/** The settings of a monitor once merged and checked (what the database holds). */
export interface MonitorSettings {
  name: string;
  description: string;
  evaluatorId: string;
  scoreName: string | null;
  metric: MonitorMetric;
  percentile: number | null;
  windowSeconds: number;
  cadenceSeconds: number;
  condition: (typeof MONITOR_CONDITIONS)[number];
  warningLevel: number | null;
  alertLevel: number | null;
  baseline: (typeof MONITOR_BASELINES)[number] | null;
  minEffect: number | null;
  maxPValue: number;
  dropSeverity: (typeof MONITOR_SEVERITIES)[number];
  minSampleSize: number;
  minCount: number;
  renotifySeconds: number | null;
  enabled: boolean;
}

/** The input naming one monitor (monitor, deleteMonitor, resolveMonitor, testFireMonitor, unmuteMonitor). */
export const monitorIdInputSchema = z.object({ id: z.string({ error: typeError("a monitor id") }) });

/** The input of resolveMonitor. */
export const resolveMonitorInputSchema = z
  .object({
    id: z.string({ error: typeError("a monitor id") }),
    reason: z.string({ error: typeError("a string") }).max(1000, "must be at most 1000 characters").describe("Why it was resolved by hand (kept in the transition).").optional(),
  })
  .strict();

/** The input of muteMonitor. */
export const muteMonitorInputSchema = z
  .object({
    id: z.string({ error: typeError("a monitor id") }),
    until: z.union([z.date(), z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" }).transform((s) => new Date(s))], { error: typeError("an ISO 8601 date-time") }).describe("Muted until this time (default: until unmuted)."),
    reason: z.string({ error: typeError("a string") }).max(1000, "must be at most 1000 characters").describe("Why (shown with the monitor)."),
  })
  .partial({ until: true, reason: true })
  .strict();

/** The input of the monitors list. */
export const listMonitorsInputSchema = z.object({
  state: z.enum(MONITOR_STATES, { error: `must be one of ${MONITOR_STATES.join(", ")}` }).optional().describe("Only monitors in this state."),
  evaluatorId: z.string().optional().describe("Only monitors of this evaluator."),
  name: z.string().optional().describe("Only the monitor with this name."),
});

/** The input of createAlertDestination. */
export const createDestinationInputSchema = z
  .object({
    name: z.string({ error: typeError("a string") }).trim().min(1, "must not be empty").max(200, "must be at most 200 characters").describe("Unique in the workspace."),
    kind: z.enum(ALERT_DESTINATION_KINDS, { error: `must be one of ${ALERT_DESTINATION_KINDS.join(", ")}` }).describe("webhook: a JSON POST signed with HMAC-SHA256 (docs/monitors.md § Webhooks); slack: a Slack incoming webhook (Slack's message shape, no signature)."),
    url: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .max(2048, "must be at most 2048 characters")
      .describe("Where to POST. A Slack webhook URL is a secret: it is stored sealed and only its origin and last characters are shown."),
  })
  .strict();

/** The input naming one destination. */
export const destinationIdInputSchema = z.object({ id: z.string({ error: typeError("a destination id") }) });

/** The input of the deliveries list. */
export const listDeliveriesInputSchema = z.object({
  monitorId: z.string().optional().describe("Only deliveries of this monitor."),
  status: z.enum(ALERT_DELIVERY_STATUSES, { error: `must be one of ${ALERT_DELIVERY_STATUSES.join(", ")}` }).optional(),
});
