import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import tCdf from "@stdlib/stats-base-dists-t-cdf";

/**
 * The significance tests of a monitor's drop condition (docs/monitors.md § Drops). Pure functions
 * over aggregates (counts, means, variances), so the window reads stay in SQL. The distribution
 * functions are stdlib's (`@stdlib/stats-base-dists-normal-cdf`, `@stdlib/stats-base-dists-t-cdf`,
 * ports of Cephes/Boost with their own reference tests); the statistics are computed here.
 * test/monitors/stats.test.ts checks every p-value against SciPy's `proportions`/`ttest_ind`.
 */

/** Which side of a change is bad: `down` for a score where higher is better, `up` for a failure share or a lag. */
export type BadSide = "down" | "up";

/** The outcome of one test: the statistic, its one-sided p-value towards the bad side, and what was compared. */
export interface TestResult {
  /** `two_proportion_z` or `welch_t`. */
  test: "two_proportion_z" | "welch_t";
  /** z or t: (current - baseline) / standard error; negative when the current side is lower. */
  statistic: number;
  /**
   * One-sided p-value of "the current window is worse than the baseline" (H0: no change): the
   * probability of a change at least this large towards the bad side by chance alone.
   */
  pValue: number;
  /** Welch's degrees of freedom (t only). */
  degreesOfFreedom?: number;
}

/** One side of a two-proportion test: successes (passes) out of n. */
export interface Proportion {
  successes: number;
  n: number;
}

/**
 * Two-proportion z-test with the pooled estimate, one-sided towards `bad`.
 *
 * z = (p₁ − p₂) / √( p̂ (1 − p̂) (1/n₁ + 1/n₂) ), with p₁ = x₁/n₁ (current), p₂ = x₂/n₂ (baseline)
 * and the pooled p̂ = (x₁ + x₂)/(n₁ + n₂); p = Φ(z) for a drop (`down`), 1 − Φ(z) for a rise.
 * Source: NIST/SEMATECH e-Handbook of Statistical Methods, § 7.3.3 "How can we determine whether
 * two processes produce the same proportion of defectives?" (the pooled-variance z statistic);
 * the normal approximation wants n·p and n·(1 − p) of about 5 or more per side, which the
 * monitor's `minSampleSize` (default 30) guards for the pass rates it watches.
 * When both sides are all passes or all failures there is no variation: z = 0, p = 1 (no evidence).
 * @throws RangeError when a side has n < 1 or successes outside 0..n.
 */
export function twoProportionZTest(current: Proportion, baseline: Proportion, bad: BadSide = "down"): TestResult {
  for (const [label, side] of [["current", current], ["baseline", baseline]] as const) {
    if (!(side.n >= 1) || side.successes < 0 || side.successes > side.n) throw new RangeError(`${label}: needs n >= 1 and 0 <= successes <= n (got ${side.successes} of ${side.n})`);
  }
  const p1 = current.successes / current.n;
  const p2 = baseline.successes / baseline.n;
  const pooled = (current.successes + baseline.successes) / (current.n + baseline.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / current.n + 1 / baseline.n));
  if (se === 0) return { test: "two_proportion_z", statistic: 0, pValue: 1 };
  const z = (p1 - p2) / se;
  return { test: "two_proportion_z", statistic: z, pValue: bad === "down" ? normalCdf(z, 0, 1) : normalCdf(-z, 0, 1) };
}

/** One side of a Welch test: the mean, the sample variance (n − 1 in the denominator) and n. */
export interface Sample {
  mean: number;
  /** Sample variance (unbiased, n − 1); SQL's `var_samp`. */
  variance: number;
  n: number;
}

/**
 * Welch's unequal-variances t-test, one-sided towards `bad`.
 *
 * t = (m₁ − m₂) / √( s₁²/n₁ + s₂²/n₂ ), with the Welch–Satterthwaite degrees of freedom
 * ν = (s₁²/n₁ + s₂²/n₂)² / ( (s₁²/n₁)²/(n₁ − 1) + (s₂²/n₂)²/(n₂ − 1) ); p = F_ν(t) for a drop,
 * 1 − F_ν(t) for a rise, F_ν the CDF of Student's t. Sources: B. L. Welch, "The generalization of
 * 'Student's' problem when several different population variances are involved", Biometrika
 * 34 (1947) 28–35; F. E. Satterthwaite, "An approximate distribution of estimates of variance
 * components", Biometrics Bulletin 2 (1946) 110–114; NIST/SEMATECH e-Handbook of Statistical
 * Methods, § 7.3.1 "Do two processes have the same mean?" (the unequal-variances case).
 * With no variance on either side the means are certain: p = 0 when they differ towards the bad
 * side, 1 otherwise.
 * @throws RangeError when a side has n < 2 or a negative variance.
 */
export function welchTTest(current: Sample, baseline: Sample, bad: BadSide = "down"): TestResult {
  for (const [label, side] of [["current", current], ["baseline", baseline]] as const) {
    if (!(side.n >= 2) || !(side.variance >= 0)) throw new RangeError(`${label}: needs n >= 2 and a variance >= 0 (got n ${side.n}, variance ${side.variance})`);
  }
  const a = current.variance / current.n;
  const b = baseline.variance / baseline.n;
  const diff = current.mean - baseline.mean;
  if (a + b === 0) {
    const worse = bad === "down" ? diff < 0 : diff > 0;
    return { test: "welch_t", statistic: diff === 0 ? 0 : diff > 0 ? Infinity : -Infinity, pValue: worse ? 0 : 1, degreesOfFreedom: current.n + baseline.n - 2 };
  }
  const t = diff / Math.sqrt(a + b);
  const df = (a + b) ** 2 / (a ** 2 / (current.n - 1) + b ** 2 / (baseline.n - 1));
  return { test: "welch_t", statistic: t, pValue: bad === "down" ? tCdf(t, df) : tCdf(-t, df), degreesOfFreedom: df };
}
