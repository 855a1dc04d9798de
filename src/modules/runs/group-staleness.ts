import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { declaredDependencies } from "../dependencies/input-runs.js";
import { groupInputDigests } from "../groups/input-digest.js";

/** A schedule of a group that holds one of the spans whose dependency run changed. */
interface TouchedSchedule {
  id: string;
  evaluatorId: string;
  targetType: "trace" | "session";
  groupKey: string;
  traceIds: string[];
  generation: number;
  ranGeneration: number | null;
  queuedGeneration: number | null;
  quietPeriodMs: number;
}

/**
 * After span evaluator `evaluatorId` has a new run on `spanIds` (it ran again, or its scores were
 * posted again): makes stale every trace or session run that depends on it and read another run on
 * one of the group's spans, as a late span does (docs/evaluation.md § Targets): the schedule gets a
 * new generation, `staleSince` and a `dueAt` one quiet period from now, so the group runs again
 * and its new run supersedes the old one in RunHistory.
 * - A settled group is stale when the digest of its dependencies' current runs on its spans
 *   (groups/input-digest.ts) differs from its run's `inputRunIds`.
 * - A group whose round is queued or running may have read the old run or the new one: it gets a
 *   next round too (at worst one run more), the group's first round as well (ranGeneration null). A round
 *   pending and not yet queued reads the new run.
 * Each schedule is moved by its own statement, guarded by the generation read, so a concurrent
 * ingest or processor wins and nothing is moved twice.
 * @returns the schedules made stale.
 */
export async function staleGroupsAfter(deps: { prisma: PrismaClient; clock: Clock }, args: { workspaceId: string; evaluatorId: string; spanIds: readonly string[] }): Promise<number> {
  const { prisma, clock } = deps;
  const dependents = await prisma.evaluatorDependency.findMany({ where: { dependsOnId: args.evaluatorId, evaluator: { target: { in: ["trace", "session"] } } }, select: { evaluatorId: true } });
  if (dependents.length === 0 || args.spanIds.length === 0) return 0;
  const traceIds = [...new Set((await prisma.span.findMany({ where: { id: { in: [...args.spanIds] }, workspaceId: args.workspaceId }, select: { traceId: true } })).map((s) => s.traceId))];
  const schedules = await prisma.$queryRaw<TouchedSchedule[]>`
    SELECT id, "evaluatorId", "targetType", "groupKey", "traceIds", generation, "ranGeneration", "queuedGeneration", "quietPeriodMs" FROM "GroupSchedule"
    WHERE "workspaceId" = ${args.workspaceId}::uuid AND "evaluatorId" = ANY(${dependents.map((d) => d.evaluatorId)}::uuid[]) AND ("ranGeneration" IS NOT NULL OR "queuedGeneration" IS NOT NULL)
      AND (("targetType" = 'trace' AND "groupKey" = ANY(${traceIds}::text[])) OR ("targetType" = 'session' AND "traceIds" && ${traceIds}::text[]))`;
  let moved = 0;
  for (const schedule of schedules) {
    // A first round (never ran) is pending too: queued, it may have read the old run.
    const pending = schedule.ranGeneration === null || schedule.generation > schedule.ranGeneration;
    if (pending && schedule.queuedGeneration !== schedule.generation) continue;
    if (!pending && !(await readOtherRuns(prisma, args.workspaceId, schedule))) continue;
    const now = clock.now();
    moved += await prisma.$executeRaw`
      UPDATE "GroupSchedule" SET generation = generation + 1, "staleSince" = COALESCE("staleSince", ${now}::timestamp(3)),
        "dueAt" = ${new Date(now.getTime() + schedule.quietPeriodMs)}::timestamp(3)
      WHERE id = ${schedule.id}::uuid AND generation = ${schedule.generation}::int`;
  }
  return moved;
}

/** True when the group's current run read other dependency runs than its spans have now (or it has no run to compare). */
async function readOtherRuns(prisma: PrismaClient, workspaceId: string, schedule: TouchedSchedule): Promise<boolean> {
  const where = schedule.targetType === "trace" ? { traceId: schedule.groupKey } : { sessionId: schedule.groupKey };
  const run = await prisma.run.findFirst({ where: { evaluatorId: schedule.evaluatorId, ...where }, select: { inputRunIds: true } });
  if (!run) return false;
  const declared = await declaredDependencies(prisma, schedule.evaluatorId);
  const traces = schedule.targetType === "trace" ? [schedule.groupKey] : schedule.traceIds;
  const runs = await prisma.$queryRaw<{ evaluatorId: string; spanId: string; id: string }[]>`
    SELECT r."evaluatorId", r."spanId", r.id FROM "Run" r JOIN "Span" s ON s.id = r."spanId"
    WHERE s."workspaceId" = ${workspaceId}::uuid AND s."traceId" = ANY(${traces}::text[]) AND r."evaluatorId" = ANY(${declared.map((d) => d.dependsOnId)}::uuid[])`;
  const now = groupInputDigests(declared.map((d) => d.dependsOnId), runs);
  const read = (run.inputRunIds ?? {}) as Record<string, unknown>;
  return Object.entries(now).some(([dependsOnId, digest]) => read[dependsOnId] !== digest);
}
