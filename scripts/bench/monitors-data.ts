/**
 * Synthetic live runs for monitors (the bench `monitors` and test/monitors): spans, runs and one
 * score each, written by ONE INSERT … SELECT over generate_series per call (no round trip per
 * row), spread evenly over [from, to). Which rows pass (or fail) is a fixed permutation of their
 * index, so passes are spread over the window rather than bunched at one end.
 */
import type { PrismaClient } from "../../src/lib/prisma.js";

/** What to write. */
export interface SyntheticRuns {
  workspaceId: string;
  evaluatorId: string;
  /** The template version the runs say they ran (NULL allowed: an external evaluator's posted scores). */
  templateVersionId: string | null;
  /** The score's name. */
  scoreName: string;
  from: Date;
  to: Date;
  /** Runs (and spans, and scores). */
  n: number;
  /**
   * BOOLEAN scores: this many pass (True). NUMERIC scores (`mean` given): ignored.
   */
  passes?: number;
  /** NUMERIC scores: uniform values with this mean and standard deviation (deterministic). */
  mean?: number;
  sd?: number;
  /** Runs that end user_error (no score), the rest ok. */
  failures?: number;
  higherIsBetter?: boolean;
  /** Prefix of the trace ids (unique per call). */
  tag: string;
}

/** Knuth's multiplicative constant, a prime: i ↦ i·K mod n permutes 0..n−1. */
const K = 2654435761n;

/** Writes the runs in one statement. @returns the number of scores written (runs that did not fail). */
export async function writeSyntheticRuns(prisma: PrismaClient, s: SyntheticRuns): Promise<number> {
  const numeric = s.mean !== undefined;
  const passes = s.passes ?? 0;
  const failures = s.failures ?? 0;
  const mean = s.mean ?? 0;
  const halfWidth = (s.sd ?? 0) * Math.sqrt(3);
  return prisma.$executeRaw`
    WITH g AS (
      SELECT i, gen_random_uuid() AS span_id, gen_random_uuid() AS run_id,
             (${s.from}::timestamp + (${s.to}::timestamp - ${s.from}::timestamp) * ((i - 0.5) / ${s.n}::float8)) AS at,
             ((i::bigint * ${K}::bigint) % ${s.n}::bigint) AS k
      FROM generate_series(1, ${s.n}::int) AS i
    ), spans AS (
      INSERT INTO "Span" (id, "workspaceId", "traceId", "spanId", name, kind, "startTime", status, "createdAt")
      SELECT span_id, ${s.workspaceId}::uuid, ${s.tag} || '-' || i, 's', 'chat', 'chat', at, 'ok', at FROM g
    ), runs AS (
      INSERT INTO "Run" (id, "workspaceId", "evaluatorId", "templateVersionId", "spanId", outcome, "errorType", "createdAt", "finishedAt")
      SELECT run_id, ${s.workspaceId}::uuid, ${s.evaluatorId}::uuid, ${s.templateVersionId}::uuid, span_id,
             CASE WHEN k < ${failures}::bigint THEN 'user_error' ELSE 'ok' END, CASE WHEN k < ${failures}::bigint THEN 'ValueError' ELSE NULL END, at, at
      FROM g
    ), v AS (
      SELECT g.*, CASE WHEN ${numeric}::boolean
               THEN ${mean}::float8 + ${halfWidth}::float8 * (2 * ((k + 0.5) / ${s.n}::float8) - 1)
               ELSE CASE WHEN (k - ${failures}::bigint) < ${passes}::bigint THEN 1 ELSE 0 END END AS num
      FROM g WHERE k >= ${failures}::bigint
    )
    INSERT INTO "Score" (id, "runId", "workspaceId", "evaluatorId", "spanId", position, name, "dataType", value, "numericValue", "higherIsBetter", "createdAt")
    SELECT gen_random_uuid(), run_id, ${s.workspaceId}::uuid, ${s.evaluatorId}::uuid, span_id, 0, ${s.scoreName},
           CASE WHEN ${numeric}::boolean THEN 'NUMERIC' ELSE 'BOOLEAN' END,
           CASE WHEN ${numeric}::boolean THEN to_jsonb(num) ELSE to_jsonb(num = 1) END, num, ${s.higherIsBetter ?? true}, at
    FROM v`;
}
