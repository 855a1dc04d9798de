import type { PrismaClient } from "../../lib/prisma.js";

/** Where an experiment is: its items by state (done + failed + skipped + pending = total). */
export interface ExperimentProgress {
  /** Items the experiment covers. */
  total: number;
  /** Items whose every evaluator ran with outcome ok. */
  done: number;
  /** Items with at least one run that did not end ok (user_error, timeout, … sandbox_error). */
  failed: number;
  /** Items whose runs are ok or skipped (a gate of a dependency did not pass), at least one skipped. */
  skipped: number;
  /** Items still waiting for at least one evaluator. */
  pending: number;
  /** Runs recorded so far, of `runsTotal` (items × evaluators): a finer bar. */
  runsRecorded: number;
  runsTotal: number;
}

/** The outcomes that count as failures of an item. */
export const FAILED_OUTCOMES_SQL = `outcome NOT IN ('ok', 'skipped')`;

/**
 * The progress of an experiment, counted from its runs (one grouped query over the unique
 * (experiment, item, evaluator) index). An item is finished when every evaluator of the
 * experiment has a run on it; finished items are done, failed or skipped.
 */
export async function experimentProgress(
  prisma: PrismaClient,
  experiment: { id: string; itemCount: number },
  evaluatorCount: number,
): Promise<ExperimentProgress> {
  const [row] = await prisma.$queryRawUnsafe<{ done: bigint; failed: bigint; skipped: bigint; runs: bigint }[]>(
    `SELECT
       count(*) FILTER (WHERE n >= $2 AND failed = 0 AND skipped = 0) AS done,
       count(*) FILTER (WHERE n >= $2 AND failed > 0) AS failed,
       count(*) FILTER (WHERE n >= $2 AND failed = 0 AND skipped > 0) AS skipped,
       coalesce(sum(n), 0) AS runs
     FROM (
       SELECT "datasetItemId", count(*) AS n,
              count(*) FILTER (WHERE ${FAILED_OUTCOMES_SQL}) AS failed,
              count(*) FILTER (WHERE outcome = 'skipped') AS skipped
       FROM "Run" WHERE "experimentId" = $1::uuid
         -- scores posted by external evaluators for the items are runs too, but not the experiment's own
         AND "evaluatorId" IN (SELECT "evaluatorId" FROM "ExperimentEvaluator" WHERE "experimentId" = $1::uuid)
       GROUP BY "datasetItemId"
     ) AS per_item`,
    experiment.id,
    evaluatorCount,
  );
  const done = Number(row?.done ?? 0);
  const failed = Number(row?.failed ?? 0);
  const skipped = Number(row?.skipped ?? 0);
  return {
    total: experiment.itemCount,
    done,
    failed,
    skipped,
    pending: Math.max(0, experiment.itemCount - done - failed - skipped),
    runsRecorded: Number(row?.runs ?? 0),
    runsTotal: experiment.itemCount * evaluatorCount,
  };
}
