import type { Prisma } from "../../generated/prisma/client.js";

/**
 * The "passed" rule of a stored score, in one place for every use: a TypeScript predicate
 * (gates, summaries), a SQL expression (aggregates) and a Prisma where (filters). The Python
 * library's `combine.passed` (python-lib/oodle_eval/v1/combine.py) is the same rule for user code;
 * test/runs/passed.test.ts checks the three here, the gate and the OTLP label against each other
 * and against the Python rule.
 */

/** The fields of a stored score that decide whether it passes. */
export interface PassableScore {
  dataType: string;
  /** The value as a number: the number, or 0/1 for a boolean; null when there is no value. */
  numericValue: number | null;
  higherIsBetter: boolean;
}

/**
 * `combine.passed` of oodle_eval.v1 on a stored score (docs/scores.md § The passed rule): a BOOLEAN
 * passes when True (False when lower is better); a NUMERIC passes at `value >= at` (`value < at`
 * when lower is better); no value fails. Pure.
 * @returns null for a CATEGORICAL score (it has no pass or fail).
 */
export function scorePasses(score: PassableScore, at = 0.5): boolean | null {
  if (score.dataType === "CATEGORICAL") return null;
  if (score.numericValue === null) return false;
  if (score.dataType === "BOOLEAN") return score.higherIsBetter ? score.numericValue === 1 : score.numericValue === 0;
  return score.higherIsBetter ? score.numericValue >= at : score.numericValue < at;
}

/**
 * The same rule as {@link scorePasses} at 0.5 as a SQL boolean over a "Score" row aliased
 * `alias` (NULL for CATEGORICAL), for aggregates in the database.
 */
export function passedSql(alias = "s"): string {
  const a = alias;
  return `CASE
  WHEN ${a}."dataType" = 'CATEGORICAL' THEN NULL
  WHEN ${a}."numericValue" IS NULL THEN false
  WHEN ${a}."dataType" = 'BOOLEAN' THEN ${a}."numericValue" = (CASE WHEN ${a}."higherIsBetter" THEN 1 ELSE 0 END)
  WHEN ${a}."higherIsBetter" THEN ${a}."numericValue" >= 0.5
  ELSE ${a}."numericValue" < 0.5
END`;
}

/** {@link passedSql} over the alias `s`. */
export const PASSED_SQL = passedSql("s");

/** Prisma's where over Score for "passes" / "fails" (the rule of {@link scorePasses} at 0.5). */
export function passedWhere(passed: boolean): Prisma.ScoreWhereInput {
  if (passed) {
    return {
      OR: [
        { dataType: "BOOLEAN", higherIsBetter: true, numericValue: 1 },
        { dataType: "BOOLEAN", higherIsBetter: false, numericValue: 0 },
        { dataType: "NUMERIC", higherIsBetter: true, numericValue: { gte: 0.5 } },
        { dataType: "NUMERIC", higherIsBetter: false, numericValue: { lt: 0.5 } },
      ],
    };
  }
  return {
    dataType: { not: "CATEGORICAL" },
    OR: [
      { numericValue: null },
      { dataType: "BOOLEAN", higherIsBetter: true, numericValue: 0 },
      { dataType: "BOOLEAN", higherIsBetter: false, numericValue: 1 },
      { dataType: "NUMERIC", higherIsBetter: true, numericValue: { lt: 0.5 } },
      { dataType: "NUMERIC", higherIsBetter: false, numericValue: { gte: 0.5 } },
    ],
  };
}

