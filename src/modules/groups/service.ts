import type { Evaluator, GroupSchedule, Run } from "../../generated/prisma/client.js";
import type { GroupTargetType } from "../../lib/closed-lists.js";
import { systemClock, type Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Principal } from "../../lib/principal.js";
import { isUuid } from "../../lib/uuid.js";
import { describeGroupEvaluation, GROUP_EVALUATION_STATES, GROUP_STATE_SQL, type GroupEvaluationState } from "./waiting.js";

export { GROUP_EVALUATION_STATES, type GroupEvaluationState } from "./waiting.js";

/** One evaluator's evaluation of one trace or session: its schedule, its current run, and its state in words. */
export interface GroupEvaluation {
  evaluator: Evaluator;
  schedule: GroupSchedule;
  targetType: GroupTargetType;
  groupKey: string;
  state: GroupEvaluationState;
  detail: string;
  /** Its current run on the group (null: none yet). */
  run: Run | null;
}

/** A group evaluator's schedules by state. */
export type GroupStateCounts = Record<GroupEvaluationState, number>;

/**
 * Reading trace and session evaluations (the schedule itself is written by ingest, the due poller
 * and the run's write: schedule.ts, processor.ts): per group, each evaluator's schedule, current
 * run and state ({@link describeGroupEvaluation}); per evaluator, its schedules by state. Every
 * read is scoped to the caller's workspace. `clock` is injectable for tests.
 */
export function createGroupEvaluationService(deps: { prisma: PrismaClient; clock?: Clock }) {
  const { prisma } = deps;
  const clock = deps.clock ?? systemClock;

  return {
    /**
     * The evaluations of one trace (`targetType` trace, `groupKey` its trace id) or session (its
     * session key) in the caller's workspace: one per evaluator with a schedule for it, oldest
     * evaluator first (archived ones too: their schedules and runs stay readable).
     */
    async groupEvaluations(principal: Principal, targetType: GroupTargetType, groupKey: string): Promise<GroupEvaluation[]> {
      const schedules = await prisma.groupSchedule.findMany({
        where: { workspaceId: principal.workspaceId, targetType, groupKey },
        include: { evaluator: true },
        orderBy: [{ evaluator: { createdAt: "asc" } }, { evaluatorId: "asc" }],
      });
      if (!schedules.length) return [];
      const key = targetType === "trace" ? "traceId" : "sessionId";
      const runs = await prisma.run.findMany({ where: { workspaceId: principal.workspaceId, evaluatorId: { in: schedules.map((s) => s.evaluatorId) }, [key]: groupKey } });
      const at = clock.now();
      return schedules.map(({ evaluator, ...schedule }) => {
        const run = runs.find((r) => r.evaluatorId === evaluator.id) ?? null;
        const { state, detail } = describeGroupEvaluation(schedule, run, at);
        return { evaluator, schedule: schedule as GroupSchedule, targetType, groupKey, state, detail, run };
      });
    },

    /**
     * The evaluation of one group by one evaluator (explainMatch of a trace or session evaluator on
     * one of its spans), by its key or, for a session, by one of its traces (the latest such
     * session): its key, its state in words and its current run; null when it has no schedule.
     */
    async groupEvaluationOf(workspaceId: string, evaluatorId: string, targetType: GroupTargetType, group: { groupKey: string } | { traceId: string }): Promise<{ groupKey: string; detail: string; run: Run | null } | null> {
      // A span without the session key counts for the sessions that hold its trace.
      const where = "groupKey" in group ? { groupKey: group.groupKey } : { traceIds: { has: group.traceId } };
      const schedule = await prisma.groupSchedule.findFirst({ where: { workspaceId, evaluatorId, targetType, ...where }, orderBy: { lastSpanAt: "desc" } });
      if (!schedule) return null;
      const groupKey = schedule.groupKey;
      const run = await prisma.run.findFirst({ where: { workspaceId, evaluatorId, ...(targetType === "trace" ? { traceId: groupKey } : { sessionId: groupKey }) } });
      return { groupKey, detail: describeGroupEvaluation(schedule, run, clock.now()).detail, run };
    },

    /** An evaluator's schedules by state (all zero for a span evaluator, or an evaluator of another workspace). */
    async stateCounts(workspaceId: string, evaluatorId: string): Promise<GroupStateCounts> {
      const counts = Object.fromEntries(GROUP_EVALUATION_STATES.map((s) => [s, 0])) as GroupStateCounts;
      if (!isUuid(evaluatorId)) return counts;
      const rows = await prisma.$queryRawUnsafe<{ state: GroupEvaluationState; n: bigint }[]>(
        `SELECT ${GROUP_STATE_SQL} AS state, count(*) AS n FROM "GroupSchedule" WHERE "workspaceId" = $1::uuid AND "evaluatorId" = $2::uuid GROUP BY 1`,
        workspaceId,
        evaluatorId,
      );
      for (const r of rows) counts[r.state] = Number(r.n);
      return counts;
    },
  };
}

/** The group evaluations service. */
export type GroupEvaluationService = ReturnType<typeof createGroupEvaluationService>;
