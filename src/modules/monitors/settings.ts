import type { InputIssue } from "../../lib/errors.js";
import { badSideOf } from "./decide.js";
import { ALWAYS_VALUED_METRICS, DROP_METRICS, SCORE_METRICS, SHARE_METRICS, type MonitorSettings } from "./schemas.js";

/** Settings a createMonitor leaves out: the defaults (docs/monitors.md § Settings). */
export const DEFAULT_SETTINGS = {
  description: "",
  scoreName: null,
  percentile: null,
  warningLevel: null,
  alertLevel: null,
  baseline: null,
  minEffect: null,
  maxPValue: 0.05,
  dropSeverity: "ALERT",
  minSampleSize: 30,
  minCount: 1,
  renotifySeconds: null,
  enabled: true,
} as const satisfies Partial<MonitorSettings>;

/**
 * The rules between a monitor's fields, each issue naming its field: what a metric needs (a score
 * name, a percentile), what a condition needs (levels for a threshold; a baseline and minEffect
 * for a drop, on a metric a drop is tested for), levels on the 0–1 scale for shares, and — when
 * the score's direction is known from its stored scores — the warning level before the alert
 * level on the bad side.
 * @param higherIsBetter - what the watched score's stored values declare (null: not known yet).
 */
export function settingsProblems(s: MonitorSettings, higherIsBetter: boolean | null): InputIssue[] {
  const issues: InputIssue[] = [];
  if (SCORE_METRICS.includes(s.metric) && s.scoreName === null) issues.push({ path: "scoreName", message: `is required for metric ${s.metric}: the score of the evaluator to watch` });
  if ((s.metric === "not_ok_share" || s.metric === "backlog_age") && s.scoreName !== null) issues.push({ path: "scoreName", message: `must not be set for metric ${s.metric}: it watches the evaluator's runs` });
  if (s.metric === "percentile" && s.percentile === null) issues.push({ path: "percentile", message: "is required for metric percentile (95 = p95)" });
  if (s.metric !== "percentile" && s.percentile !== null) issues.push({ path: "percentile", message: "is only for metric percentile" });
  if (ALWAYS_VALUED_METRICS.includes(s.metric) && s.minCount !== 1) issues.push({ path: "minCount", message: `does not apply to metric ${s.metric}: it always has a value` });
  if (s.condition === "threshold") {
    if (s.warningLevel === null && s.alertLevel === null) issues.push({ path: "alertLevel", message: "a threshold needs warningLevel, alertLevel or both" });
    if (s.baseline !== null) issues.push({ path: "baseline", message: "is only for condition drop" });
    if (s.minEffect !== null) issues.push({ path: "minEffect", message: "is only for condition drop" });
    for (const field of ["warningLevel", "alertLevel"] as const) {
      const v = s[field];
      if (v !== null && SHARE_METRICS.includes(s.metric) && (v < 0 || v > 1)) issues.push({ path: field, message: `must be between 0 and 1 for metric ${s.metric}` });
      if (v !== null && (s.metric === "count" || s.metric === "backlog_age") && v < 0) issues.push({ path: field, message: `must not be negative for metric ${s.metric}` });
    }
    const side = badSideOf(s.metric, higherIsBetter);
    if (side && s.warningLevel !== null && s.alertLevel !== null) {
      const ordered = side === "down" ? s.warningLevel >= s.alertLevel : s.warningLevel <= s.alertLevel;
      if (!ordered) {
        issues.push({
          path: "warningLevel",
          message: `must be reached before alertLevel: the bad side of this ${s.metric}${s.scoreName ? ` (${s.scoreName}, higherIsBetter ${higherIsBetter})` : ""} is ${side === "down" ? "below" : "above"}, so warningLevel must be ${side === "down" ? "at or above" : "at or below"} alertLevel ${s.alertLevel}`,
        });
      }
    }
  } else {
    if (!DROP_METRICS.includes(s.metric)) issues.push({ path: "condition", message: `a drop is tested for ${DROP_METRICS.join(", ")} (two-proportion z for shares, Welch's t for means), not ${s.metric}` });
    if (s.baseline === null) issues.push({ path: "baseline", message: "is required for condition drop: previous_window, week_before or previous_version" });
    if (s.minEffect === null) issues.push({ path: "minEffect", message: "is required for condition drop: the smallest change for the worse that fires, in the metric's unit" });
    else if (SHARE_METRICS.includes(s.metric) && s.minEffect > 1) issues.push({ path: "minEffect", message: `must be at most 1 for metric ${s.metric}` });
    if (s.warningLevel !== null) issues.push({ path: "warningLevel", message: "is only for condition threshold (a drop fires at dropSeverity)" });
    if (s.alertLevel !== null) issues.push({ path: "alertLevel", message: "is only for condition threshold (a drop fires at dropSeverity)" });
  }
  return issues;
}
