/** The fields of a stored score that decide whether it passes. */
export interface PassableScore {
  dataType: string;
  /** The value as a number: the number, or 0/1 for a boolean; null when there is no value. */
  numericValue: number | null;
  higherIsBetter: boolean;
}

/**
 * `combine.passed` of oodle_eval.v1 on a stored score (oodle-eval-v1.md, "combine"): a BOOLEAN
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
