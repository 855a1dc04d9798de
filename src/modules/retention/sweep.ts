import type { PrismaClient } from "../../lib/prisma.js";

/** What one batch deleted, in rows. */
export interface BatchCounts {
  spans: number;
  runs: number;
  scores: number;
  history: number;
}

/**
 * Deletes up to `batchSize` of a workspace's spans created before `cutoff`, oldest first, with
 * their runs, scores and run history, in ONE short transaction (ids first, then each table by
 * those ids through its index: `Score.spanId`, `RunHistory (spanId, …)`, `Run (spanId, evaluatorId)`,
 * the span's primary key; backfill membership goes with the span by cascade, owed rows (no
 * foreign key: a target is polymorphic) are deleted here).
 * Explicit deletes keep the batch short whether or not foreign keys cascade.
 *
 * Not deleted: a span that still owes an evaluation (its job would find no span; it ages out
 * once its run is in), and spans whose rows another sweep holds (`FOR UPDATE SKIP LOCKED`: two
 * workers sweeping share the work instead of waiting).
 */
export async function deleteSpanBatch(prisma: PrismaClient, workspaceId: string, cutoff: Date, batchSize: number): Promise<BatchCounts> {
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT s.id FROM "Span" s
      WHERE s."workspaceId" = ${workspaceId}::uuid AND s."createdAt" < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM "OwedEvaluation" o WHERE o."targetType" = 'span' AND o."targetId" = s.id)
      ORDER BY s."createdAt"
      LIMIT ${batchSize}
      FOR UPDATE OF s SKIP LOCKED`;
    if (rows.length === 0) return { spans: 0, runs: 0, scores: 0, history: 0 };
    const ids = rows.map((r) => r.id);
    const scores = await tx.$executeRaw`DELETE FROM "Score" WHERE "spanId" = ANY(${ids}::uuid[])`;
    const history = await tx.$executeRaw`DELETE FROM "RunHistory" WHERE "spanId" = ANY(${ids}::uuid[])`;
    const runs = await tx.$executeRaw`DELETE FROM "Run" WHERE "spanId" = ANY(${ids}::uuid[])`;
    // Owed rows have no foreign key to their target: one owed since the read above goes with its span here.
    await tx.$executeRaw`DELETE FROM "OwedEvaluation" WHERE "targetType" = 'span' AND "targetId" = ANY(${ids}::uuid[])`;
    const spans = await tx.$executeRaw`DELETE FROM "Span" WHERE id = ANY(${ids}::uuid[])`;
    return { spans, runs, scores, history };
  });
}

/**
 * Deletes up to `batchSize` rows of a workspace's run history superseded before `cutoff` (history
 * of spans that are still kept), oldest first, through `RunHistory (workspaceId, supersededAt)`.
 * @returns the rows deleted.
 */
export async function deleteHistoryBatch(prisma: PrismaClient, workspaceId: string, cutoff: Date, batchSize: number): Promise<number> {
  return prisma.$executeRaw`
    DELETE FROM "RunHistory" WHERE id IN (
      SELECT id FROM "RunHistory" WHERE "workspaceId" = ${workspaceId}::uuid AND "supersededAt" < ${cutoff}
      ORDER BY "supersededAt" LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)`;
}

/**
 * Deletes up to `batchSize` of a workspace's trace and session runs written before `cutoff` (a
 * group run is no span's: no foreign key takes it away with its spans), oldest first, with their
 * scores (by cascade) and run history, and the schedules of groups whose last span arrived before
 * `cutoff` and that wait for nothing (`dueAt` NULL). A group that got spans since has a newer run.
 * @returns the runs and history rows deleted.
 */
export async function deleteGroupBatch(prisma: PrismaClient, workspaceId: string, cutoff: Date, batchSize: number): Promise<{ runs: number; history: number }> {
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string; evaluatorId: string; traceId: string | null; sessionId: string | null }[]>`
      SELECT id, "evaluatorId", "traceId", "sessionId" FROM "Run"
      WHERE "workspaceId" = ${workspaceId}::uuid AND "createdAt" < ${cutoff} AND ("traceId" IS NOT NULL OR "sessionId" IS NOT NULL)
      ORDER BY "createdAt" LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`;
    let history = 0;
    if (rows.length) {
      const groups = JSON.stringify(rows.map((r) => ({ e: r.evaluatorId, t: r.traceId, s: r.sessionId })));
      history = await tx.$executeRaw`
        DELETE FROM "RunHistory" h USING jsonb_to_recordset(${groups}::jsonb) AS g(e uuid, t text, s text)
        WHERE h."evaluatorId" = g.e AND (h."traceId" = g.t OR h."sessionId" = g.s)`;
      await tx.$executeRaw`DELETE FROM "Run" WHERE id = ANY(${rows.map((r) => r.id)}::uuid[])`;
    }
    await tx.$executeRaw`
      DELETE FROM "GroupSchedule" WHERE id IN (
        SELECT id FROM "GroupSchedule" WHERE "workspaceId" = ${workspaceId}::uuid AND "lastSpanAt" < ${cutoff} AND "dueAt" IS NULL
        LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)`;
    return { runs: rows.length, history };
  });
}
