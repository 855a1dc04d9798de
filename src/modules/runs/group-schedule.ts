import { Prisma } from "../../generated/prisma/client.js";
import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import { groupJobId } from "../../queues/registry.js";
import type { GroupTargetType } from "../../lib/closed-lists.js";

/**
 * The due poller of trace and session groups (docs/evaluation.md § Targets). The schedule lives in
 * Postgres (GroupSchedule: ingest slides `dueAt` with every span, spans/ingest-write.ts); BullMQ only
 * carries the job of a generation once it is due, so nothing of the schedule is lost with Redis:
 * - **due**: rows whose `dueAt` passed and whose pending generation is not queued are marked queued
 *   (`FOR UPDATE SKIP LOCKED`: pollers of several workers share the rows) and get one
 *   `evaluate-target` job each, id `<schedule>_g<generation>_<queued at, ms>`;
 * - **lost**: a queued generation with no run after `requeueAfterMs` whose job is not waiting or
 *   running any more (Redis lost it, or it failed) is queued again (a fresh id: its queueing time); one
 *   still waiting or running only has its check moved on (`checkedAt`; `queuedAt`, in its job id, stays), so a slow job is never run twice; at most {@link MAX_GROUP_REQUEUES} times per
 *   generation (then logged and left; the count restarts when a generation is queued or written);
 *   an enqueue that fails puts the rows back for the due pass, spending nothing; a duplicate run is impossible, the processor writes a generation once under
 *   the schedule's row lock (runs/group-processor.ts).
 * Time is the injected clock's, so tests move it instead of sleeping.
 */

/** BullMQ states of a job that will still run: a generation whose job is in one is not lost. */
const ALIVE_JOB_STATES = new Set(["waiting", "active", "delayed", "prioritized", "waiting-children"]);

/** A queued generation is queued again at most this many times. */
export const MAX_GROUP_REQUEUES = 10;

/** What one pass did. */
export interface GroupPollReport {
  /** Generations queued because they came due. */
  queued: number;
  /** Generations queued again (their job lost). */
  requeued: number;
  /** How late the due ones were queued: clock now − dueAt, ms, one per queued generation. */
  lateMs: number[];
}

interface DueRow {
  id: string;
  workspaceId: string;
  evaluatorId: string;
  targetType: GroupTargetType;
  generation: number;
  dueAt: Date | null;
  requeues: number;
}

/**
 * Builds the poller.
 * @param deps.options.batch - rows looked at per pass and kind (default 500; the next pass takes the rest at once).
 * @param deps.options.requeueAfterMs - how long a queued generation may go without its run before it is queued again (default 120 s).
 */
export function createGroupScheduler(deps: { prisma: PrismaClient; queues: Queues; logger: Logger; clock: Clock; options?: { batch?: number; requeueAfterMs?: number } }) {
  const { prisma, queues, logger, clock } = deps;
  const batch = deps.options?.batch ?? 500;
  const requeueAfterMs = deps.options?.requeueAfterMs ?? 120_000;

  /** Adds the jobs of rows just marked queued; on failure the rows are put back as not queued, for the next due pass. */
  async function enqueue(rows: DueRow[], queuedAt: Date): Promise<boolean> {
    if (rows.length === 0) return true;
    try {
      await queues.addBulk(
        "evaluate-target",
        rows.map((r) => ({ payload: { workspaceId: r.workspaceId, targetType: r.targetType, targetId: r.id, evaluatorId: r.evaluatorId, generation: r.generation }, jobId: groupJobId(r.id, r.generation, queuedAt) })),
      );
      return true;
    } catch (error) {
      logger.warn({ groups: rows.length, err: error instanceof Error ? error.message : String(error) }, "due trace/session evaluations not queued now; the next pass queues them again");
      // Not queued after all: the due pass takes them again (without spending the lost pass's budget).
      await prisma.$executeRaw`UPDATE "GroupSchedule" SET "queuedGeneration" = "ranGeneration", "queuedAt" = NULL WHERE id = ANY(${rows.map((r) => r.id)}::uuid[]) AND "queuedGeneration" = generation`;
      return false;
    }
  }

  /**
   * One pass: queues the due generations, then the lost ones (of one workspace when `scope` names
   * it: tests that share a database move their own clock for their own rows only).
   * @returns what it queued.
   * @throws the database error (the next pass tries again; nothing was half-done: rows are marked in one statement each).
   */
  async function poll(scope: { workspaceId?: string } = {}): Promise<GroupPollReport> {
    const now = clock.now();
    const workspace = scope.workspaceId ? Prisma.sql`AND "workspaceId" = ${scope.workspaceId}::uuid` : Prisma.empty;
    const due = await prisma.$queryRaw<DueRow[]>`
      WITH due AS (
        SELECT id FROM "GroupSchedule"
        WHERE "dueAt" <= ${now}::timestamp(3) AND ("queuedGeneration" IS NULL OR "queuedGeneration" < generation) ${workspace}
        ORDER BY "dueAt" LIMIT ${batch}::int FOR UPDATE SKIP LOCKED
      )
      UPDATE "GroupSchedule" gs SET "queuedGeneration" = gs.generation, "queuedAt" = ${now}::timestamp(3), "checkedAt" = NULL, requeues = 0
      FROM due WHERE gs.id = due.id
      RETURNING gs.id, gs."workspaceId", gs."evaluatorId", gs."targetType", gs.generation, gs."dueAt", gs.requeues`;
    const queued = (await enqueue(due, now)) ? due.length : 0;
    const overdue = Prisma.sql`"queuedGeneration" IS NOT NULL AND ("ranGeneration" IS NULL OR "ranGeneration" < "queuedGeneration")
          AND (COALESCE("checkedAt", "queuedAt") IS NULL OR COALESCE("checkedAt", "queuedAt") < ${new Date(now.getTime() - requeueAfterMs)}::timestamp(3))
          AND requeues < ${MAX_GROUP_REQUEUES}::int ${workspace}`;
    const candidates = await prisma.$queryRaw<{ id: string; generation: number; queuedAt: Date | null }[]>`
      SELECT id, "queuedGeneration" AS generation, "queuedAt" FROM "GroupSchedule" WHERE ${overdue} ORDER BY COALESCE("checkedAt", "queuedAt") NULLS FIRST LIMIT ${batch}::int`;
    // A job still waiting or running (a slow sandbox, a long backlog) is not lost: its check moves on (checkedAt; queuedAt stays, the job's id holds it), and it is not queued twice.
    const states = await queues.states("evaluate-target", candidates.map((c) => (c.queuedAt ? groupJobId(c.id, c.generation, c.queuedAt) : "")));
    const alive = candidates.filter((c, i) => c.queuedAt !== null && ALIVE_JOB_STATES.has(states[i]!));
    if (alive.length) {
      await prisma.$executeRaw`
        UPDATE "GroupSchedule" gs SET "checkedAt" = ${now}::timestamp(3)
        FROM jsonb_to_recordset(${JSON.stringify(alive.map((c) => ({ id: c.id, g: c.generation, at: c.queuedAt!.toISOString() })))}::jsonb) AS a(id uuid, g int, at timestamptz)
        WHERE gs.id = a.id AND gs."queuedGeneration" = a.g AND gs."queuedAt" = (a.at AT TIME ZONE 'UTC')::timestamp(3)`;
    }
    const dead = candidates.filter((c) => !alive.includes(c)).map((c) => c.id);
    const lost = await prisma.$queryRaw<DueRow[]>`
      WITH lost AS (
        SELECT id FROM "GroupSchedule"
        WHERE id = ANY(${dead}::uuid[]) AND ${overdue}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE "GroupSchedule" gs SET "queuedAt" = ${now}::timestamp(3), "checkedAt" = NULL, requeues = gs.requeues + 1
      FROM lost WHERE gs.id = lost.id
      RETURNING gs.id, gs."workspaceId", gs."evaluatorId", gs."targetType", gs."queuedGeneration" AS generation, gs."dueAt", gs.requeues`;
    for (const row of lost) {
      if (row.requeues >= MAX_GROUP_REQUEUES) logger.error({ scheduleId: row.id, evaluatorId: row.evaluatorId, generation: row.generation }, "trace/session evaluation still has no run after many re-queues; last try");
    }
    const requeued = (await enqueue(lost, now)) ? lost.length : 0;
    return { queued, requeued, lateMs: due.map((r) => (r.dueAt ? now.getTime() - r.dueAt.getTime() : 0)) };
  }

  /**
   * Polls every `intervalMs` until stopped (one pass at a time; a failed pass is logged).
   * @returns stop: waits for the pass in flight.
   */
  function start(intervalMs: number): () => Promise<void> {
    let stopped = false;
    let inFlight: Promise<unknown> = Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      if (stopped) return;
      inFlight = poll()
        .catch((error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, "group poll failed; the next pass tries again"))
        .finally(() => {
          if (!stopped) timer = setTimeout(tick, intervalMs);
        });
    };
    timer = setTimeout(tick, 0);
    return async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    };
  }

  return { poll, start };
}

/** The group poller. */
export type GroupScheduler = ReturnType<typeof createGroupScheduler>;
