import type { PrismaClient } from "../../lib/prisma.js";
import { passedSql } from "../dependencies/passed.js";
import { toScoreSummary, type ScoreAggregateRow, type ScoreSummaryBase } from "../runs/score-summary.js";

/** The progress of a backfill. */
export interface BackfillProgress {
  /** Spans chosen at creation. */
  spansTotal: number;
  /** Spans of the finished batches. */
  spansDone: number;
  batchesTotal: number;
  batchesDone: number;
  /** Runs this backfill recorded so far (also those a later backfill replaced since). */
  runsRecorded: number;
  /** (span, evaluator) pairs of finished batches left as they were (already evaluated, or a dependency's rule did not match). */
  pairsSkipped: number;
  /** Earlier runs this backfill replaced (kept in RunHistory). */
  runsSuperseded: number;
  /** spansDone / spansTotal, 0 to 1 (1 for a backfill with no spans). */
  fraction: number;
}

/** One score name of one evaluator over a backfill's runs (as an experiment's summary). */
export type BackfillScoreSummary = ScoreSummaryBase;

/** Runs of one evaluator of a backfill that ended with one outcome. */
export interface BackfillOutcomeCount {
  evaluatorId: string;
  evaluatorName: string;
  outcome: string;
  count: number;
}

/** The runs a backfill wrote: those still current (Run) and those a later backfill replaced (RunHistory). */
const BACKFILL_RUNS = `
  SELECT r."evaluatorId", r.outcome FROM "Run" r WHERE r."backfillId" = $1::uuid
  UNION ALL
  SELECT h."evaluatorId", h.outcome FROM "RunHistory" h WHERE h."backfillId" = $1::uuid`;

/** The scores of those runs (a replaced run's scores are kept as JSON on its history row). */
const BACKFILL_SCORES = `
  SELECT s."evaluatorId", s.name, s."dataType", s."numericValue", s."higherIsBetter", s.position
  FROM "Score" s JOIN "Run" r ON r.id = s."runId" WHERE r."backfillId" = $1::uuid
  UNION ALL
  SELECT h."evaluatorId", x.name, x."dataType", x."numericValue", x."higherIsBetter", x.position
  FROM "RunHistory" h CROSS JOIN LATERAL jsonb_to_recordset(h.scores) AS x(name text, "dataType" text, "numericValue" float8, "higherIsBetter" boolean, position int)
  WHERE h."backfillId" = $1::uuid`;

/**
 * Progress in one statement (one snapshot, correct across workers): spans, runs and skipped pairs
 * all from the finished batches' rows (BackfillBatch, each written once its batch is done), so
 * spansDone and runsRecorded always describe the same batches — a batch whose runs are being
 * written counts in neither until it finishes (1 span and 1 evaluator: runsRecorded ≤ spansDone,
 * never 21 runs for 20 spans).
 */
export async function backfillProgress(prisma: PrismaClient, backfill: { id: string; spanCount: number; batchSize: number }): Promise<BackfillProgress> {
  const [row] = await prisma.$queryRaw<{ done: bigint; spans: bigint | null; recorded: bigint | null; skipped: bigint | null; superseded: bigint }[]>`
    SELECT count(*) AS done, sum(b.spans) AS spans, sum(b."runsRecorded") AS recorded, sum(b."pairsSkipped") AS skipped,
           (SELECT count(*) FROM "RunHistory" h WHERE h."supersededByBackfillId" = ${backfill.id}::uuid) AS superseded
    FROM "BackfillBatch" b WHERE b."backfillId" = ${backfill.id}::uuid`;
  const spansDone = Number(row?.spans ?? 0);
  return {
    spansTotal: backfill.spanCount,
    spansDone,
    batchesTotal: Math.ceil(backfill.spanCount / backfill.batchSize),
    batchesDone: Number(row?.done ?? 0),
    runsRecorded: Number(row?.recorded ?? 0),
    pairsSkipped: Number(row?.skipped ?? 0),
    runsSuperseded: Number(row?.superseded ?? 0),
    fraction: backfill.spanCount ? spansDone / backfill.spanCount : 1,
  };
}

/** Runs by evaluator and outcome, in the backfill's evaluator order. */
export async function backfillOutcomeCounts(prisma: PrismaClient, backfillId: string): Promise<BackfillOutcomeCount[]> {
  const rows = await prisma.$queryRawUnsafe<{ evaluatorId: string; evaluatorName: string; outcome: string; count: bigint }[]>(
    `SELECT t."evaluatorId", e.name AS "evaluatorName", t.outcome, count(*) AS count
     FROM (${BACKFILL_RUNS}) t
     JOIN "Evaluator" e ON e.id = t."evaluatorId"
     JOIN "BackfillEvaluator" m ON m."backfillId" = $1::uuid AND m."evaluatorId" = t."evaluatorId"
     GROUP BY t."evaluatorId", e.name, t.outcome, m.position
     ORDER BY m.position, t.outcome`,
    backfillId,
  );
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}

/** Per evaluator and score name: count, mean and pass rate (the rule and scale test of an experiment's summary). */
export async function backfillScoreSummaries(prisma: PrismaClient, backfillId: string): Promise<BackfillScoreSummary[]> {
  const rows = await prisma.$queryRawUnsafe<ScoreAggregateRow[]>(
    `SELECT s."evaluatorId", e.name AS "evaluatorName", s.name, s."dataType", s."higherIsBetter",
            count(*) AS count, count(s."numericValue") AS "valueCount", avg(s."numericValue")::float8 AS mean,
            count(*) FILTER (WHERE (${passedSql("s")})) AS passed,
            coalesce(min(s."numericValue") >= 0 AND max(s."numericValue") <= 1, true) AS "unitScale"
     FROM (${BACKFILL_SCORES}) s
     JOIN "Evaluator" e ON e.id = s."evaluatorId"
     JOIN "BackfillEvaluator" m ON m."backfillId" = $1::uuid AND m."evaluatorId" = s."evaluatorId"
     GROUP BY s."evaluatorId", e.name, s.name, s."dataType", s."higherIsBetter", m.position
     ORDER BY m.position, min(s.position), s.name`,
    backfillId,
  );
  return rows.map(toScoreSummary);
}
