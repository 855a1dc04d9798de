import type { PrismaClient } from "../../lib/prisma.js";
import { PASSED_SQL } from "../dependencies/passed.js";
import { toScoreSummary, type ScoreAggregateRow, type ScoreSummaryBase } from "../runs/score-summary.js";

/** The aggregate of one score name of one evaluator over an experiment (count: one per item whose run wrote it). */
export interface ScoreSummary extends ScoreSummaryBase {
  /** Runs of this evaluator that read a dependency with no scores for their item (ctx.score fell back to its default). */
  runsWithMissingDependencies: number;
}

/** Runs of one evaluator that read one dependency with no scores for their item. */
export interface MissingDependencyCount {
  evaluatorId: string;
  evaluatorName: string;
  /** The dependency's name. */
  dependency: string;
  runs: number;
}

/** Per evaluator and dependency: runs that read it while it had no scores (never silent: docs/evaluation.md § Dependencies and gates). */
export async function missingDependencyCounts(prisma: PrismaClient, experimentId: string): Promise<MissingDependencyCount[]> {
  const rows = await prisma.$queryRaw<{ evaluatorId: string; evaluatorName: string; dependency: string; runs: bigint }[]>`
    SELECT r."evaluatorId", e.name AS "evaluatorName", d.dependency, count(*) AS runs
    FROM "Run" r
    CROSS JOIN LATERAL unnest(r."missingDependencies") AS d(dependency)
    JOIN "Evaluator" e ON e.id = r."evaluatorId"
    JOIN "ExperimentEvaluator" x ON x."experimentId" = r."experimentId" AND x."evaluatorId" = r."evaluatorId"
    WHERE r."experimentId" = ${experimentId}::uuid
    GROUP BY r."evaluatorId", e.name, d.dependency, x.position
    ORDER BY x.position, d.dependency`;
  return rows.map((r) => ({ ...r, runs: Number(r.runs) }));
}

/** Runs of one evaluator that ended with one outcome. */
export interface OutcomeCount {
  evaluatorId: string;
  evaluatorName: string;
  outcome: string;
  count: number;
}

/**
 * Per evaluator and score name: count, mean and pass rate, in the experiment's evaluator order,
 * then each evaluator's score order. One grouped query over the experiment's scores.
 */
export async function scoreSummaries(prisma: PrismaClient, experimentId: string): Promise<ScoreSummary[]> {
  const rows = await prisma.$queryRawUnsafe<(ScoreAggregateRow & { missingRuns: bigint })[]>(
    `SELECT s."evaluatorId", e.name AS "evaluatorName", s.name, s."dataType", s."higherIsBetter",
            count(*) AS count, count(s."numericValue") AS "valueCount", avg(s."numericValue")::float8 AS mean,
            count(*) FILTER (WHERE (${PASSED_SQL})) AS passed,
            coalesce(min(s."numericValue") >= 0 AND max(s."numericValue") <= 1, true) AS "unitScale",
            (SELECT count(*) FROM "Run" m WHERE m."experimentId" = s."experimentId" AND m."evaluatorId" = s."evaluatorId"
               AND cardinality(m."missingDependencies") > 0) AS "missingRuns"
     FROM "Score" s
     JOIN "Evaluator" e ON e.id = s."evaluatorId"
     JOIN "ExperimentEvaluator" x ON x."experimentId" = s."experimentId" AND x."evaluatorId" = s."evaluatorId"
     WHERE s."experimentId" = $1::uuid
     GROUP BY s."experimentId", s."evaluatorId", e.name, s.name, s."dataType", s."higherIsBetter", x.position
     ORDER BY x.position, min(s.position), s.name`,
    experimentId,
  );
  return rows.map((r) => ({ ...toScoreSummary(r), runsWithMissingDependencies: Number(r.missingRuns) }));
}

/** Runs by evaluator and outcome (ok included), in the experiment's evaluator order. */
export async function outcomeCounts(prisma: PrismaClient, experimentId: string): Promise<OutcomeCount[]> {
  const rows = await prisma.$queryRaw<{ evaluatorId: string; evaluatorName: string; outcome: string; count: bigint }[]>`
    SELECT r."evaluatorId", e.name AS "evaluatorName", r.outcome, count(*) AS count
    FROM "Run" r
    JOIN "Evaluator" e ON e.id = r."evaluatorId"
    JOIN "ExperimentEvaluator" x ON x."experimentId" = r."experimentId" AND x."evaluatorId" = r."evaluatorId"
    WHERE r."experimentId" = ${experimentId}::uuid
    GROUP BY r."evaluatorId", e.name, r.outcome, x.position
    ORDER BY x.position, r.outcome`;
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}
