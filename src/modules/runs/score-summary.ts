/** One grouped row of scores (per evaluator and score name) as Postgres returns it. */
export interface ScoreAggregateRow {
  evaluatorId: string;
  evaluatorName: string;
  name: string;
  dataType: string;
  higherIsBetter: boolean;
  count: bigint;
  valueCount: bigint;
  mean: number | null;
  passed: bigint;
  /** True when every numeric value lies in [0, 1] (or there is none). */
  unitScale: boolean;
}

/** The aggregate of one score name of one evaluator over a set of runs (an experiment's, a backfill's). */
export interface ScoreSummaryBase {
  evaluatorId: string;
  evaluatorName: string;
  name: string;
  dataType: string;
  higherIsBetter: boolean;
  /** Scores written (one per run that wrote it). */
  count: number;
  /** Scores with a value (the rest are None: not applicable). */
  valueCount: number;
  /** Mean of the values (a boolean as 0/1); null when none has a number. */
  mean: number | null;
  /**
   * Scores that pass (docs/scores.md § The passed rule, at 0.5); null exactly when `passRate` is:
   * for CATEGORICAL and for a NUMERIC score whose values leave the 0–1 scale.
   */
  passed: number | null;
  /**
   * Share of `count` that passes; null for CATEGORICAL and for a NUMERIC score whose values leave
   * the 0–1 scale (a word count or a grade: 0.5 means nothing there). The items filter `passed`
   * follows the same rule (src/modules/experiments/items.ts).
   */
  passRate: number | null;
}

/**
 * The summary of one grouped row: counts as numbers, and the pass rate = passed / count. Both
 * `passed` and `passRate` are null for categorical scores and NUMERIC scores outside [0, 1] (a
 * pass at 0.5 means nothing there), so the two never disagree; the pass rate is null for an empty
 * group too. One rule for experiments and backfills.
 */
export function toScoreSummary(r: ScoreAggregateRow): ScoreSummaryBase {
  const passes = r.dataType !== "CATEGORICAL" && r.unitScale;
  return {
    evaluatorId: r.evaluatorId,
    evaluatorName: r.evaluatorName,
    name: r.name,
    dataType: r.dataType,
    higherIsBetter: r.higherIsBetter,
    count: Number(r.count),
    valueCount: Number(r.valueCount),
    mean: r.mean === null ? null : Number(r.mean),
    passed: passes ? Number(r.passed) : null,
    passRate: passes && Number(r.count) > 0 ? Number(r.passed) / Number(r.count) : null,
  };
}
