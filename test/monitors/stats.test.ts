// The drop tests' statistics against SciPy: the pooled two-proportion z equals the square root of
// Pearson's chi-square without continuity correction (scipy.stats.chi2_contingency(table,
// correction=False); one-sided p = two-sided / 2 on the side of the change), and Welch's t is
// scipy.stats.ttest_ind(..., equal_var=False, alternative=...). The values below were printed by
// Debian's python3-scipy 1.10, which `npx tsx scripts/setup.ts --test` installs; the last test asks it again.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { twoProportionZTest, welchTTest } from "../../src/modules/monitors/stats.js";

describe("two-proportion z-test (pooled)", () => {
  it("0.90 → 0.80 with n = 500 each side: z −4.428, one-sided p 4.754e-6 (scipy)", () => {
    const r = twoProportionZTest({ successes: 400, n: 500 }, { successes: 450, n: 500 }, "down");
    expect(r.statistic).toBeCloseTo(-4.428074427700476, 10);
    expect(r.pValue / 4.753904768836229e-6).toBeCloseTo(1, 8);
  });

  it("0.90 → 0.88 with n = 50 each side: z −0.3196, p 0.3746 (noise)", () => {
    const r = twoProportionZTest({ successes: 44, n: 50 }, { successes: 45, n: 50 }, "down");
    expect(r.statistic).toBeCloseTo(-0.31960138605029653, 10);
    expect(r.pValue).toBeCloseTo(0.3746352617642287, 10);
  });

  it("a rise of a failure share (bad side up): 30/200 vs 10/200, z 3.333, p 4.291e-4", () => {
    const r = twoProportionZTest({ successes: 30, n: 200 }, { successes: 10, n: 200 }, "up");
    expect(r.statistic).toBeCloseTo(3.3333333333333335, 10);
    expect(r.pValue / 0.0004290603331968379).toBeCloseTo(1, 8);
    // The same change seen from the other side is no evidence of a drop.
    expect(twoProportionZTest({ successes: 30, n: 200 }, { successes: 10, n: 200 }, "down").pValue).toBeGreaterThan(0.99);
  });

  it("no variation on either side: p = 1; a side with n = 0 is refused", () => {
    expect(twoProportionZTest({ successes: 50, n: 50 }, { successes: 30, n: 30 }).pValue).toBe(1);
    expect(() => twoProportionZTest({ successes: 0, n: 0 }, { successes: 1, n: 2 })).toThrow(RangeError);
  });
});

describe("Welch's t-test", () => {
  it("from summary statistics: t −2.287, one-sided p 0.01137 (scipy ttest_ind_from_stats)", () => {
    const r = welchTTest({ mean: 0.7, variance: 0.04, n: 200 }, { mean: 0.75, variance: 0.05, n: 180 }, "down");
    expect(r.statistic).toBeCloseTo(-2.2874785549890717, 10);
    expect(r.pValue).toBeCloseTo(0.011372764973655532, 9);
  });

  it("from samples of unequal size: t −5.142, df 14.48, p 6.727e-5 (scipy ttest_ind)", () => {
    const a = [3.1, 2.9, 3.4, 3.0, 2.7, 3.3, 3.2, 2.8];
    const b = [3.6, 3.5, 3.9, 3.4, 3.8, 3.7, 3.3, 4.0, 3.6];
    const stats = (xs: number[]) => {
      const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
      return { mean, variance: xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1), n: xs.length };
    };
    const down = welchTTest(stats(a), stats(b), "down");
    expect(down.statistic).toBeCloseTo(-5.142091845254674, 9);
    expect(down.degreesOfFreedom).toBeCloseTo(14.480071494375888, 8);
    expect(down.pValue / 6.727014941394627e-5).toBeCloseTo(1, 6);
    // A lower-is-better score rising: the same figures from the other side.
    const up = welchTTest(stats(b), stats(a), "up");
    expect(up.pValue / 6.727014941394627e-5).toBeCloseTo(1, 6);
  });

  it("no variance: certain when the means differ towards the bad side", () => {
    expect(welchTTest({ mean: 1, variance: 0, n: 10 }, { mean: 2, variance: 0, n: 10 }, "down").pValue).toBe(0);
    expect(welchTTest({ mean: 2, variance: 0, n: 10 }, { mean: 1, variance: 0, n: 10 }, "down").pValue).toBe(1);
    expect(() => welchTTest({ mean: 1, variance: 0, n: 1 }, { mean: 1, variance: 0, n: 10 })).toThrow(RangeError);
  });
});

describe("against SciPy, asked now", () => {
  it("agrees on random tables and samples", () => {
    const cases = [
      [123, 400, 160, 410],
      [9, 31, 20, 33],
      [990, 1000, 998, 1000],
    ] as const;
    const welch = [
      [0.41, 0.02, 57, 0.47, 0.035, 61],
      [12.5, 9.0, 30, 11.0, 16.0, 45],
    ] as const;
    const script = `
import json, sys
from scipy import stats
out = {"z": [], "t": []}
for x1, n1, x2, n2 in ${JSON.stringify(cases)}:
    chi2, p, _, _ = stats.chi2_contingency([[x1, n1 - x1], [x2, n2 - x2]], correction=False)
    out["z"].append(p / 2)
for m1, v1, n1, m2, v2, n2 in ${JSON.stringify(welch)}:
    r = stats.ttest_ind_from_stats(m1, v1 ** 0.5, n1, m2, v2 ** 0.5, n2, equal_var=False, alternative="less")
    out["t"].append([r.statistic, r.pvalue])
print(json.dumps(out))`;
    const ref = JSON.parse(execFileSync("/usr/bin/python3", ["-c", script], { encoding: "utf8" })) as { z: number[]; t: [number, number][] };
    cases.forEach(([x1, n1, x2, n2], i) => {
      const r = twoProportionZTest({ successes: x1, n: n1 }, { successes: x2, n: n2 }, "down");
      // scipy's p is two-sided: halved, it is the one-sided p on the side the change went (here: down).
      expect(r.pValue / ref.z[i]!).toBeCloseTo(1, 8);
    });
    welch.forEach(([m1, v1, n1, m2, v2, n2], i) => {
      const r = welchTTest({ mean: m1, variance: v1, n: n1 }, { mean: m2, variance: v2, n: n2 }, "down");
      expect(r.statistic).toBeCloseTo(ref.t[i]![0], 9);
      expect(r.pValue / ref.t[i]![1]).toBeCloseTo(1, 8);
    });
  });
});
