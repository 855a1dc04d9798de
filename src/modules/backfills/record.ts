import { randomUUID } from "node:crypto";
import type { ItemResult } from "../../execution/index.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { moveRunsToHistory } from "../runs/history.js";
import { jsonWithoutNul, runColumns, SKIPPED_COLUMNS, type RunColumns } from "../runs/record.js";

/** What one run of a backfill on a span records. */
export interface BackfillRunRecord {
  workspaceId: string;
  spanId: string;
  evaluatorId: string;
  templateVersionId: string;
  /** ctx.params as the run saw them. */
  params: Record<string, unknown>;
  /** Shared-library versions used: name → version. */
  libraryVersions: Record<string, number>;
  /** The sandbox's result; null for a run skipped by a gate (see `skipReason`). */
  result: ItemResult | null;
  skipReason?: string;
  /** The dependency runs read on the span: evaluator id → run id (as a live dependent stores them). */
  inputRunIds: Record<string, string>;
  /** Dependencies that had no scores on the span (ctx.score fell back to its default). */
  missingDependencies: string[];
  /** Attempts of the batch job so far (1 on the first). */
  attempts: number;
  startedAt: Date;
  finishedAt: Date;
}

/** A run the writer inserted. */
export interface WrittenRun {
  id: string;
  spanId: string;
  evaluatorId: string;
  outcome: string;
  columns: RunColumns;
}

/** What one write did. */
export interface WriteOutcome {
  /** Runs inserted, with their columns (the scores a dependent reads next). */
  written: WrittenRun[];
  /** Earlier runs moved to RunHistory (rerun). */
  superseded: number;
  /** Records dropped: the pair already had this backfill's run, or a run and no rerun was asked. */
  dropped: number;
  /** True when the backfill was no longer queued or running: nothing was written. */
  stopped: boolean;
}


/** Inserts runs and the scores of the runs inserted, in one statement (the unique (span, evaluator) index decides). */
const INSERT_RUNS_AND_SCORES = `
WITH inserted AS (
  INSERT INTO "Run" (id, "workspaceId", "evaluatorId", "templateVersionId", "spanId", "backfillId", "libraryVersions", params, outcome, "skipReason",
                     "missingDependencies", "inputRunIds", stdout, stderr, "errorType", "errorMessage", "errorTraceback", "durationMs", "outputTruncated", attempts, "startedAt", "finishedAt")
  SELECT r.id, r."workspaceId", r."evaluatorId", r."templateVersionId", r."spanId", r."backfillId", r."libraryVersions", r.params, r.outcome, r."skipReason",
         coalesce(r."missingDependencies", ARRAY[]::text[]), coalesce(r."inputRunIds", '{}'::jsonb), r.stdout, r.stderr, r."errorType", r."errorMessage", r."errorTraceback",
         r."durationMs", coalesce(r."outputTruncated", false), r.attempts, r."startedAt", r."finishedAt"
  FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, "workspaceId" uuid, "evaluatorId" uuid, "templateVersionId" uuid, "spanId" uuid, "backfillId" uuid,
       "libraryVersions" jsonb, params jsonb, outcome text, "skipReason" text, "missingDependencies" text[], "inputRunIds" jsonb, stdout text, stderr text,
       "errorType" text, "errorMessage" text, "errorTraceback" text, "durationMs" float8, "outputTruncated" boolean, attempts int, "startedAt" timestamp(3), "finishedAt" timestamp(3))
  ON CONFLICT ("spanId", "evaluatorId") DO NOTHING
  RETURNING id
), scores AS (
  INSERT INTO "Score" (id, "runId", "workspaceId", "evaluatorId", "spanId", position, name, "dataType", value, "numericValue", "higherIsBetter", comment, metadata)
  SELECT gen_random_uuid(), s."runId", s."workspaceId", s."evaluatorId", s."spanId", s.position, s.name, s."dataType", s.value, s."numericValue", s."higherIsBetter", s.comment, s.metadata
  FROM jsonb_to_recordset($2::jsonb) AS s("runId" uuid, "workspaceId" uuid, "evaluatorId" uuid, "spanId" uuid, position int, name text, "dataType" text,
       value jsonb, "numericValue" float8, "higherIsBetter" boolean, comment text, metadata jsonb)
  WHERE s."runId" IN (SELECT id FROM inserted)
)
SELECT id FROM inserted`;

/**
 * Writes a backfill's runs of one evaluator over a batch, in ONE transaction:
 * 1. the backfill's row is read FOR SHARE — when it is no longer queued or running (cancelled),
 *    nothing is written, and `cancelBackfill` (an UPDATE of that row) waits for writes in flight,
 *    so no run of a backfill commits after its cancel returned;
 * 2. the pairs' current runs are locked; a pair that already has this backfill's run is dropped
 *    (a retried batch, or a worker that took the batch over), one with another run is dropped
 *    unless `rerun`;
 * 3. with `rerun`, the earlier runs move to RunHistory (with their scores as JSON) and are deleted;
 * 4. the new runs and their scores are inserted in one statement, `ON CONFLICT (spanId,
 *    evaluatorId) DO NOTHING` — the Run table stays unique per (span, evaluator), the newest run
 *    being the one every reader sees.
 */
export async function recordBackfillRuns(prisma: PrismaClient, backfill: { id: string; rerun: boolean }, records: readonly BackfillRunRecord[]): Promise<WriteOutcome> {
  if (records.length === 0) return { written: [], superseded: 0, dropped: 0, stopped: false };
  return prisma.$transaction(
    async (tx) => {
      const [row] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM "Backfill" WHERE id = ${backfill.id}::uuid FOR SHARE`;
      if (!row || (row.status !== "queued" && row.status !== "running")) return { written: [], superseded: 0, dropped: records.length, stopped: true };
      const existing = await tx.$queryRaw<{ id: string; spanId: string; evaluatorId: string; backfillId: string | null }[]>`
        SELECT r.id, r."spanId", r."evaluatorId", r."backfillId" FROM "Run" r
        JOIN unnest(${records.map((r) => r.spanId)}::uuid[], ${records.map((r) => r.evaluatorId)}::uuid[]) AS p("spanId", "evaluatorId")
          ON r."spanId" = p."spanId" AND r."evaluatorId" = p."evaluatorId"
        ORDER BY r.id
        FOR UPDATE OF r`;
      const byPair = new Map(existing.map((r) => [`${r.spanId}/${r.evaluatorId}`, r]));
      const keep: BackfillRunRecord[] = [];
      const supersede: string[] = [];
      for (const record of records) {
        const current = byPair.get(`${record.spanId}/${record.evaluatorId}`);
        if (current && (current.backfillId === backfill.id || !backfill.rerun)) continue;
        if (current) supersede.push(current.id);
        keep.push(record);
      }
      if (supersede.length) {
        await moveRunsToHistory(tx, supersede, backfill.id);
      }
      const written = await insertRuns(tx, backfill.id, keep);
      return { written, superseded: supersede.length, dropped: records.length - written.length, stopped: false };
    },
    { maxWait: 10_000, timeout: 60_000 },
  );
}

async function insertRuns(tx: Pick<PrismaClient, "$queryRawUnsafe">, backfillId: string, records: readonly BackfillRunRecord[]): Promise<WrittenRun[]> {
  if (records.length === 0) return [];
  const runs: unknown[] = [];
  const scores: unknown[] = [];
  const planned = new Map<string, WrittenRun>();
  for (const r of records) {
    const id = randomUUID();
    const columns = r.result ? runColumns(r.result) : SKIPPED_COLUMNS;
    planned.set(id, { id, spanId: r.spanId, evaluatorId: r.evaluatorId, outcome: columns.outcome, columns });
    runs.push({
      id,
      workspaceId: r.workspaceId,
      evaluatorId: r.evaluatorId,
      templateVersionId: r.templateVersionId,
      spanId: r.spanId,
      backfillId,
      libraryVersions: r.libraryVersions,
      params: jsonWithoutNul(r.params),
      outcome: columns.outcome,
      skipReason: r.skipReason ?? null,
      missingDependencies: r.missingDependencies,
      inputRunIds: r.inputRunIds,
      stdout: columns.stdout,
      stderr: columns.stderr,
      errorType: columns.errorType,
      errorMessage: columns.errorMessage,
      errorTraceback: columns.errorTraceback,
      durationMs: columns.durationMs,
      outputTruncated: columns.outputTruncated,
      attempts: r.attempts,
      startedAt: r.startedAt.toISOString(),
      finishedAt: r.finishedAt.toISOString(),
    });
    for (const s of columns.scores) scores.push({ runId: id, workspaceId: r.workspaceId, evaluatorId: r.evaluatorId, spanId: r.spanId, ...s });
  }
  const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(INSERT_RUNS_AND_SCORES, JSON.stringify(runs), JSON.stringify(scores));
  return inserted.map((row) => planned.get(row.id)!);
}
