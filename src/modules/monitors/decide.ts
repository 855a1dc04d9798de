import type { MonitorMetric, MonitorState } from "../../lib/closed-lists.js";
import type { WindowAggregate } from "./aggregates.js";
import { ALWAYS_VALUED_METRICS, type MonitorSettings } from "./schemas.js";
import { twoProportionZTest, welchTTest, type BadSide, type TestResult } from "./stats.js";

/**
 * What one window gives, decided from its aggregates (docs/monitors.md § States): pure, so the
 * rules are tested without a database.
 */

/** The decision of one evaluation. */
export interface Decision {
  state: MonitorState;
  value: number | null;
  n: number;
  baselineValue: number | null;
  baselineN: number | null;
  /** current − baseline, signed (drop only). */
  effect: number | null;
  pValue: number | null;
  statistic: number | null;
  /** For people: why this state. */
  reason: string;
  /** The test, degrees of freedom, the bad side, the baseline's description. */
  detail: Record<string, unknown>;
}

/** Names of the metrics for people. */
export const METRIC_LABELS: Record<MonitorMetric, string> = {
  pass_rate: "pass rate",
  mean: "mean",
  percentile: "percentile",
  count: "count",
  not_ok_share: "share of runs not ok",
  backlog_age: "backlog age (s)",
};

/**
 * The side of a metric that is bad: pass_rate and count fall (fewer passes, less traffic);
 * not_ok_share and backlog_age rise; a mean or percentile goes the way its score's
 * `higherIsBetter` says (down when higher is better). Null when a score's direction is unknown
 * (no scores, or scores that disagree).
 */
export function badSideOf(metric: MonitorMetric, higherIsBetter: boolean | null): BadSide | null {
  if (metric === "pass_rate" || metric === "count") return "down";
  if (metric === "not_ok_share" || metric === "backlog_age") return "up";
  return higherIsBetter === null ? null : higherIsBetter ? "down" : "up";
}

/** A number for a reason text: 3 significant digits, or the exponent form for p-values. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x !== 0 && Math.abs(x) < 1e-3) return x.toExponential(2);
  return Number(x.toPrecision(4)).toString();
}

function label(m: Pick<MonitorSettings, "metric" | "percentile" | "scoreName">): string {
  const metric = m.metric === "percentile" ? `p${m.percentile}` : METRIC_LABELS[m.metric];
  return m.scoreName ? `${metric} of ${m.scoreName}` : metric;
}

/** NO_DATA when the window is short of values (metrics that can have none), else undefined. */
function noData(m: MonitorSettings, current: WindowAggregate): Decision | undefined {
  const base = { value: current.value, n: current.n, baselineValue: null, baselineN: null, effect: null, pValue: null, statistic: null };
  if (ALWAYS_VALUED_METRICS.includes(m.metric)) return undefined;
  if (current.n < m.minCount) return { ...base, state: "NO_DATA", reason: `${current.n} value(s) in the window, fewer than minCount ${m.minCount}`, detail: {} };
  if (current.value === null) return { ...base, state: "NO_DATA", reason: current.noValueReason ?? `no ${label(m)} in the window`, detail: {} };
  return undefined;
}

/** A threshold: ALERT past alertLevel, else WARNING past warningLevel, else OK, on the metric's bad side. */
export function decideThreshold(m: MonitorSettings, current: WindowAggregate): Decision {
  const empty = noData(m, current);
  if (empty) return empty;
  const value = current.value!;
  const side = badSideOf(m.metric, current.higherIsBetter);
  const base = { value, n: current.n, baselineValue: null, baselineN: null, effect: null, pValue: null, statistic: null };
  if (side === null) {
    return { ...base, state: "NO_DATA", reason: `the scores of ${m.scoreName} disagree on higherIsBetter in this window, so the bad side is unknown`, detail: { mixedDirections: true } };
  }
  const past = (level: number | null) => level !== null && (side === "down" ? value < level : value > level);
  const word = side === "down" ? "below" : "above";
  const detail = { badSide: side };
  if (past(m.alertLevel)) return { ...base, state: "ALERT", reason: `${label(m)} ${fmt(value)} is ${word} the alert level ${fmt(m.alertLevel!)} (n ${current.n})`, detail };
  if (past(m.warningLevel)) return { ...base, state: "WARNING", reason: `${label(m)} ${fmt(value)} is ${word} the warning level ${fmt(m.warningLevel!)} (n ${current.n})`, detail };
  return { ...base, state: "OK", reason: `${label(m)} ${fmt(value)} is within the levels (n ${current.n})`, detail };
}

/** Names of the baselines in reasons. */
const BASELINE_WORDS: Record<string, string> = { previous_window: "the previous window", week_before: "the same window a week before", previous_version: "the previous template version" };

/**
 * A drop: fires (at dropSeverity) when the change towards the bad side is at least minEffect AND
 * the one-sided test says it is unlikely by chance (p < maxPValue): the two-proportion z-test for
 * pass_rate and not_ok_share, Welch's t-test for mean (src/modules/monitors/stats.ts). Either side
 * short of minSampleSize: not tested (OK, said so).
 * @param baselineNote - which baseline was read (window bounds or versions), kept in the detail.
 */
export function decideDrop(m: MonitorSettings, current: WindowAggregate, baseline: WindowAggregate | null, baselineNote: Record<string, unknown> = {}): Decision {
  const empty = noData(m, current);
  if (empty) return empty;
  const value = current.value!;
  const against = BASELINE_WORDS[m.baseline ?? ""] ?? "the baseline";
  const base = { value, n: current.n, baselineValue: baseline?.value ?? null, baselineN: baseline?.n ?? null, effect: null, pValue: null, statistic: null };
  const side = badSideOf(m.metric, current.higherIsBetter ?? baseline?.higherIsBetter ?? null);
  if (side === null) return { ...base, state: "OK", reason: `not tested: the scores disagree on higherIsBetter`, detail: { ...baselineNote, tested: false } };
  if (!baseline || baseline.value === null || baseline.n < m.minSampleSize || current.n < m.minSampleSize) {
    const why = !baseline || baseline.value === null ? `${against} has no ${label(m)}` : `n ${current.n} vs ${baseline.n}, below minSampleSize ${m.minSampleSize}`;
    return { ...base, state: "OK", reason: `not tested: ${why}`, detail: { ...baselineNote, tested: false, badSide: side } };
  }
  const effect = value - baseline.value;
  let test: TestResult;
  if (m.metric === "mean") {
    test = welchTTest({ mean: value, variance: current.variance ?? 0, n: current.n }, { mean: baseline.value, variance: baseline.variance ?? 0, n: baseline.n }, side);
  } else {
    test = twoProportionZTest({ successes: current.successes, n: current.n }, { successes: baseline.successes, n: baseline.n }, side);
  }
  const worse = side === "down" ? -effect : effect;
  const fires = worse >= m.minEffect! && test.pValue < m.maxPValue;
  const change = `${side === "down" ? (effect <= 0 ? "down" : "up") : effect >= 0 ? "up" : "down"} ${fmt(Math.abs(effect))}`;
  const stat = test.test === "welch_t" ? `Welch t = ${fmt(test.statistic)}, df ${fmt(test.degreesOfFreedom!)}` : `z = ${fmt(test.statistic)}`;
  const because = fires
    ? `a drop: ${change} (min ${fmt(m.minEffect!)}), p = ${fmt(test.pValue)} < ${fmt(m.maxPValue)}`
    : worse < m.minEffect!
      ? `no drop: ${change}, less than minEffect ${fmt(m.minEffect!)} (p = ${fmt(test.pValue)})`
      : `no significant drop: ${change}, but p = ${fmt(test.pValue)} is not below ${fmt(m.maxPValue)}`;
  return {
    ...base,
    state: fires ? m.dropSeverity : "OK",
    effect,
    pValue: test.pValue,
    statistic: test.statistic,
    reason: `${label(m)} ${fmt(value)} vs ${fmt(baseline.value)} in ${against} (n ${current.n} vs ${baseline.n}): ${because} (${stat})`,
    detail: { ...baselineNote, tested: true, test: test.test, badSide: side, ...(test.degreesOfFreedom !== undefined ? { degreesOfFreedom: test.degreesOfFreedom } : {}) },
  };
}
