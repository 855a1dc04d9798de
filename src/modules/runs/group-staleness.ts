import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/prisma.js";
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
 * The settled groups' runs and digests are read in three queries for all the touched schedules.
 * Each schedule is moved by its own statement, guarded by the generation read, so a concurrent
 * ingest or processor wins and nothing is moved twice.
 * @param args.dependents - the trace and session evaluators depending on `evaluatorId`, when the caller has read them (the live hook does).
 * @returns the schedules made stale.
 */
export async function staleGroupsAfter(
  deps: { prisma: PrismaClient; clock: Clock },
  args: { workspaceId: string; evaluatorId: string; spanIds: readonly string[]; dependents?: readonly string[] },
): Promise<number> {
  const { prisma, clock } = deps;
  // The trace and session evaluators that depend on it: given by a caller that read them already, else read here.
  const dependents =
    args.dependents ??
    (await prisma.evaluatorDependency.findMany({ where: { dependsOnId: args.evaluatorId, evaluator: { target: { in: ["trace", "session"] } } }, select: { evaluatorId: true } })).map((d) => d.evaluatorId);
  if (dependents.length === 0 || args.spanIds.length === 0) return 0;
  const traceIds = [...new Set((await prisma.span.findMany({ where: { id: { in: [...args.spanIds] }, workspaceId: args.workspaceId }, select: { traceId: true } })).map((s) => s.traceId))];
  const schedules = await prisma.$queryRaw<TouchedSchedule[]>`
    SELECT id, "evaluatorId", "targetType", "groupKey", "traceIds", generation, "ranGeneration", "queuedGeneration", "quietPeriodMs" FROM "GroupSchedule"
    WHERE "workspaceId" = ${args.workspaceId}::uuid AND "evaluatorId" = ANY(${[...dependents]}::uuid[]) AND ("ranGeneration" IS NOT NULL OR "queuedGeneration" IS NOT NULL)
      AND (("targetType" = 'trace' AND "groupKey" = ANY(${traceIds}::text[])) OR ("targetType" = 'session' AND "traceIds" && ${traceIds}::text[]))`;
  const now = clock.now();
  const moving: TouchedSchedule[] = [];
  const settled: TouchedSchedule[] = [];
  for (const schedule of schedules) {
    // A first round (never ran) is pending too: queued, it may have read the old run.
    const pending = schedule.ranGeneration === null || schedule.generation > schedule.ranGeneration;
    if (!pending) settled.push(schedule);
    else if (schedule.queuedGeneration === schedule.generation) moving.push(schedule);
  }
  moving.push(...(await readOtherRuns(prisma, args.workspaceId, settled)));
  let moved = 0;
  for (const schedule of moving) {
    moved += await prisma.$executeRaw`
      UPDATE "GroupSchedule" SET generation = generation + 1, "staleSince" = COALESCE("staleSince", ${now}::timestamp(3)),
        "dueAt" = ${new Date(now.getTime() + schedule.quietPeriodMs)}::timestamp(3)
      WHERE id = ${schedule.id}::uuid AND generation = ${schedule.generation}::int`;
  }
  return moved;
}

/**
 * The settled schedules whose current run read other dependency runs than their spans have now, in
 * three queries for all of them (their runs, their evaluators' dependencies, the dependencies' runs on
 * their traces), not three per schedule: a span backfill's batch touches many groups. A group with no
 * run is not stale.
 */
async function readOtherRuns(prisma: PrismaClient, workspaceId: string, schedules: readonly TouchedSchedule[]): Promise<TouchedSchedule[]> {
  if (schedules.length === 0) return [];
  const evaluatorIds = [...new Set(schedules.map((s) => s.evaluatorId))];
  const keys = [...new Set(schedules.map((s) => s.groupKey))];
  const [runs, edges] = await Promise.all([
    prisma.run.findMany({ where: { evaluatorId: { in: evaluatorIds }, OR: [{ traceId: { in: keys } }, { sessionId: { in: keys } }] }, select: { evaluatorId: true, traceId: true, sessionId: true, inputRunIds: true } }),
    prisma.evaluatorDependency.findMany({ where: { evaluatorId: { in: evaluatorIds } }, select: { evaluatorId: true, dependsOnId: true } }),
  ]);
  const runOf = new Map(runs.map((r) => [`${r.evaluatorId}:${r.traceId !== null ? "trace" : "session"}:${r.traceId ?? r.sessionId}`, r]));
  const dependsOnOf = new Map<string, string[]>();
  for (const e of edges) dependsOnOf.set(e.evaluatorId, [...(dependsOnOf.get(e.evaluatorId) ?? []), e.dependsOnId]);
  const tracesOf = (s: TouchedSchedule) => (s.targetType === "trace" ? [s.groupKey] : s.traceIds);
  const withRun = schedules.filter((s) => runOf.has(`${s.evaluatorId}:${s.targetType}:${s.groupKey}`));
  if (withRun.length === 0) return [];
  const traces = [...new Set(withRun.flatMap(tracesOf))];
  const dependsOn = [...new Set(edges.map((e) => e.dependsOnId))];
  const inputs = await prisma.$queryRaw<{ evaluatorId: string; spanId: string; id: string; traceId: string }[]>`
    SELECT r."evaluatorId", r."spanId", r.id, s."traceId" FROM "Run" r JOIN "Span" s ON s.id = r."spanId"
    WHERE s."workspaceId" = ${workspaceId}::uuid AND s."traceId" = ANY(${traces}::text[]) AND r."evaluatorId" = ANY(${dependsOn}::uuid[])`;
  const byTrace = new Map<string, typeof inputs>();
  for (const run of inputs) byTrace.set(run.traceId, [...(byTrace.get(run.traceId) ?? []), run]);
  return withRun.filter((s) => {
    const declared = dependsOnOf.get(s.evaluatorId) ?? [];
    const now = groupInputDigests(declared, tracesOf(s).flatMap((t) => byTrace.get(t) ?? []));
    const read = (runOf.get(`${s.evaluatorId}:${s.targetType}:${s.groupKey}`)!.inputRunIds ?? {}) as Record<string, unknown>;
    return Object.entries(now).some(([id, digest]) => read[id] !== digest);
  });
}
