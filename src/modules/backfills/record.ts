import type { PrismaClient } from "../../lib/prisma.js";
import { moveRunsToHistory } from "../evaluation/history.js";
import type { RunColumns } from "../evaluation/record.js";
import { insertRuns, lockGroupRuns, type RunRecord, type SessionTarget, type SpanTarget, type TraceTarget } from "../evaluation/write.js";

/** What one run of a backfill on a span records (the backfill's id is added by {@link recordBackfillRuns}). */
export type BackfillRunRecord = Omit<RunRecord<SpanTarget>, "backfillId">;

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

/**
 * Writes a backfill's runs of one evaluator over a batch, in ONE transaction:
 * 1. the backfill's row is read FOR SHARE — when it is no longer queued or running (cancelled),
 *    nothing is written, and `cancelBackfill` (an UPDATE of that row) waits for writes in flight,
 *    so no run of a backfill commits after its cancel returned;
 * 2. the pairs' current runs are locked; a pair that already has this backfill's run is dropped
 *    (a retried batch, or a worker that took the batch over), one with another run is dropped
 *    unless `rerun`;
 * 3. with `rerun`, the earlier runs move to RunHistory (with their scores as JSON) and are deleted;
 * 4. the new runs and their scores are inserted by the evaluation module's writer (evaluation/write.ts, one
 *    statement, `ON CONFLICT (spanId, evaluatorId) DO NOTHING`) — the Run table stays unique per
 *    (span, evaluator), the newest run being the one every reader sees.
 */
export async function recordBackfillRuns(prisma: PrismaClient, backfill: { id: string; rerun: boolean }, records: readonly BackfillRunRecord[]): Promise<WriteOutcome> {
  if (records.length === 0) return { written: [], superseded: 0, dropped: 0, stopped: false };
  return prisma.$transaction(
    async (tx) => {
      const [row] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM "Backfill" WHERE id = ${backfill.id}::uuid FOR SHARE`;
      if (!row || (row.status !== "queued" && row.status !== "running")) return { written: [], superseded: 0, dropped: records.length, stopped: true };
      const existing = await tx.$queryRaw<{ id: string; spanId: string; evaluatorId: string; backfillId: string | null }[]>`
        SELECT r.id, r."spanId", r."evaluatorId", r."backfillId" FROM "Run" r
        JOIN unnest(${records.map((r) => r.target.spanId)}::uuid[], ${records.map((r) => r.evaluatorId)}::uuid[]) AS p("spanId", "evaluatorId")
          ON r."spanId" = p."spanId" AND r."evaluatorId" = p."evaluatorId"
        ORDER BY r.id
        FOR UPDATE OF r`;
      const byPair = new Map(existing.map((r) => [`${r.spanId}/${r.evaluatorId}`, r]));
      const keep: RunRecord<SpanTarget>[] = [];
      const supersede: string[] = [];
      for (const record of records) {
        const current = byPair.get(`${record.target.spanId}/${record.evaluatorId}`);
        if (current && (current.backfillId === backfill.id || !backfill.rerun)) continue;
        if (current) supersede.push(current.id);
        keep.push({ ...record, backfillId: backfill.id });
      }
      if (supersede.length) {
        await moveRunsToHistory(tx, supersede, { reason: "backfill_rerun", backfillId: backfill.id });
      }
      const written = (await insertRuns(tx, keep)).map(({ record, runId, columns }) => ({ id: runId, spanId: record.target.spanId, evaluatorId: record.evaluatorId, outcome: columns.outcome, columns }));
      return { written, superseded: supersede.length, dropped: records.length - written.length, stopped: false };
    },
    { maxWait: 10_000, timeout: 60_000 },
  );
}

/** What one run of a trace or session backfill records (the backfill's id is added by {@link recordBackfillGroupRuns}). */
export type BackfillGroupRunRecord = Omit<RunRecord<TraceTarget | SessionTarget>, "backfillId">;

/** What a backfilled group's schedule starts from, when the evaluator has none for it: its traces, spans and timing settings. */
export interface BackfillGroupSchedule {
  traceIds: string[];
  /** The arrival of its first and latest stored span. */
  firstSpanAt: Date;
  lastSpanAt: Date;
  spanCount: number;
  quietPeriodMs: number;
  maxWaitMs: number;
}

/** A group run the writer inserted: its group key. */
export interface WrittenGroupRun {
  id: string;
  groupKey: string;
  evaluatorId: string;
  outcome: string;
  columns: RunColumns;
}

/** The group key of a trace or session target. */
function keyOf(target: TraceTarget | SessionTarget): string {
  return "traceId" in target ? target.traceId : target.sessionId;
}

/**
 * Writes a trace or session backfill's runs of its evaluator over a batch, in ONE transaction, by
 * the rules of {@link recordBackfillRuns}: the backfill's row FOR SHARE (nothing after a cancel),
 * the groups' current runs locked (unique per (evaluator, traceId) and (evaluator, sessionId)); a
 * group that already has this backfill's run is dropped (a retried batch), one with another run is
 * dropped unless `rerun`, which moves that run to RunHistory (reason `backfill_rerun`) first.
 * Every record is of the same evaluator and target type.
 */
export async function recordBackfillGroupRuns(
  prisma: PrismaClient,
  backfill: { id: string; rerun: boolean },
  records: readonly BackfillGroupRunRecord[],
  schedules: ReadonlyMap<string, BackfillGroupSchedule> = new Map(),
): Promise<{ written: WrittenGroupRun[]; superseded: number; stopped: boolean }> {
  if (records.length === 0) return { written: [], superseded: 0, stopped: false };
  const evaluatorId = records[0]!.evaluatorId;
  const trace = "traceId" in records[0]!.target;
  const keys = records.map((r) => keyOf(r.target));
  return prisma.$transaction(
    async (tx) => {
      const [row] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM "Backfill" WHERE id = ${backfill.id}::uuid FOR SHARE`;
      if (!row || (row.status !== "queued" && row.status !== "running")) return { written: [], superseded: 0, stopped: true };
      await lockGroupRuns(tx, evaluatorId, trace ? "trace" : "session", keys);
      const existing = trace
        ? await tx.$queryRaw<{ id: string; key: string; backfillId: string | null }[]>`
            SELECT id, "traceId" AS key, "backfillId" FROM "Run" WHERE "evaluatorId" = ${evaluatorId}::uuid AND "traceId" = ANY(${keys}::text[]) ORDER BY id FOR UPDATE`
        : await tx.$queryRaw<{ id: string; key: string; backfillId: string | null }[]>`
            SELECT id, "sessionId" AS key, "backfillId" FROM "Run" WHERE "evaluatorId" = ${evaluatorId}::uuid AND "sessionId" = ANY(${keys}::text[]) ORDER BY id FOR UPDATE`;
      const byKey = new Map(existing.map((r) => [r.key, r]));
      const keep: RunRecord<TraceTarget | SessionTarget>[] = [];
      const supersede: string[] = [];
      for (const record of records) {
        const current = byKey.get(keyOf(record.target));
        if (current && (current.backfillId === backfill.id || !backfill.rerun)) continue;
        if (current) supersede.push(current.id);
        keep.push({ ...record, backfillId: backfill.id });
      }
      await moveRunsToHistory(tx, supersede, { reason: "backfill_rerun", backfillId: backfill.id });
      const written = (await insertRuns(tx, keep)).map(({ record, runId, columns }) => ({ id: runId, groupKey: keyOf(record.target), evaluatorId: record.evaluatorId, outcome: columns.outcome, columns }));
      // A group the evaluator never took live gets its schedule, as ran: its views list it, and a dependency's
      // new run or a late span makes it stale as any other (an existing schedule is left as it is).
      const now = new Date();
      const rows = written.flatMap((w) => {
        const s = schedules.get(w.groupKey);
        return s ? [{ ...s, workspaceId: records[0]!.workspaceId, evaluatorId, targetType: trace ? "trace" : "session", groupKey: w.groupKey, generation: 1, queuedGeneration: 1, queuedAt: now, ranGeneration: 1, ranAt: now }] : [];
      });
      if (rows.length) await tx.groupSchedule.createMany({ data: rows, skipDuplicates: true });
      return { written, superseded: supersede.length, stopped: false };
    },
    { maxWait: 10_000, timeout: 60_000 },
  );
}
