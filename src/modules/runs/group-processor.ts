import type { GroupSchedule, Span } from "../../generated/prisma/client.js";
import type { Clock } from "../../lib/clock.js";
import type { GroupCompletion, GroupTargetType } from "../../lib/closed-lists.js";
import { objectOf } from "../../lib/json-column.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { EvaluationCore } from "../evaluation/evaluate-batch.js";
import { moveRunsToHistory } from "../evaluation/history.js";
import { INVOCATION_CAP_REASON, runColumns } from "../evaluation/record.js";
import type { EvaluationSubject } from "../evaluation/subject.js";
import { insertRuns, type RunRecord, type SessionTarget, type TraceTarget } from "../evaluation/write.js";
import { settingsOf, type GroupSettings } from "../evaluators/group-settings.js";
import { kindTraits } from "../evaluators/kinds.js";
import { crashesOf, SandboxFaultError, WORKER_CRASH_LIMIT, type JobAttempts, type RecordedRun } from "./processor.js";
import { specsOf } from "../templates/store.js";
import { resolveParams } from "../templates/values.js";
import { sessionDocument, traceDocument } from "../groups/documents.js";

/** The ids of a due generation (the `evaluate-target` pair payload of a trace or session). */
export interface GroupPayload {
  workspaceId: string;
  targetType: GroupTargetType;
  /** The GroupSchedule row (one per group and evaluator). */
  targetId: string;
  evaluatorId: string;
  /** The generation that came due; absent: the schedule's queued one. */
  generation?: number;
}

/** What the group processor did with a job. */
export type GroupStatus = "recorded" | "already-recorded" | "target-gone" | "evaluator-gone" | "external";

/** The writer's target of a group run: the trace id or the session key. */
function targetOf(schedule: Pick<GroupSchedule, "targetType" | "groupKey">): TraceTarget | SessionTarget {
  return schedule.targetType === "trace" ? { traceId: schedule.groupKey } : { sessionId: schedule.groupKey };
}

/**
 * Why a generation ran when it did, from its schedule: the end marker when one arrived; else the
 * maximum wait when it came before the quiet period's end; else the quiet period.
 */
export function completionOf(schedule: Pick<GroupSchedule, "markerAt" | "firstSpanAt" | "lastSpanAt" | "quietPeriodMs" | "maxWaitMs">): GroupCompletion {
  if (schedule.markerAt) return "end_marker";
  return schedule.firstSpanAt.getTime() + schedule.maxWaitMs < schedule.lastSpanAt.getTime() + schedule.quietPeriodMs ? "max_wait" : "quiet_period";
}

/**
 * The driver of trace and session evaluations (docs/evaluation.md § Targets): one job per due
 * generation of a (group, evaluator), queued by the due poller (group-schedule.ts). It loads the group's
 * spans (a trace's, or every trace of a session, earliest first), builds the document with the
 * evaluator's caps (groups/documents.ts), evaluates it through the evaluation core (the only way to the
 * sandbox), and writes in ONE transaction under the schedule's row lock: the generation is written
 * once (a duplicate job finds it done), the group's current run moves to RunHistory with reason
 * `group_changed`, the new run is inserted, and the schedule marks the generation ran (nothing is
 * pending unless spans arrived meanwhile: then it stays stale and its next generation comes due).
 * Gates as on spans: archived, disabled, the invocation cap and a worker that crashed on it
 * {@link WORKER_CRASH_LIMIT} times are recorded with the reason; a sandbox fault is retried.
 */
export function createGroupProcessor(deps: { prisma: PrismaClient; logger: Logger; core: EvaluationCore; clock: Clock; onRecorded?: (event: RecordedRun) => void }) {
  const { prisma, logger, clock } = deps;

  /** The group's spans by trace (traces ordered by their first span), each earliest first. */
  async function spansOf(schedule: GroupSchedule): Promise<Span[][]> {
    const spans = await prisma.span.findMany({
      where: { workspaceId: schedule.workspaceId, traceId: schedule.targetType === "trace" ? schedule.groupKey : { in: schedule.traceIds } },
      orderBy: [{ startTime: "asc" }, { createdAt: "asc" }],
    });
    const byTrace = new Map<string, Span[]>();
    for (const span of spans) {
      const list = byTrace.get(span.traceId);
      if (list) list.push(span);
      else byTrace.set(span.traceId, [span]);
    }
    return [...byTrace.values()];
  }

  function documentOf(schedule: GroupSchedule, traces: Span[][], settings: GroupSettings, completion: GroupCompletion): { document: Record<string, unknown>; capped: boolean } {
    const document = (schedule.targetType === "trace" ? traceDocument(traces[0] ?? [], settings, { completion }) : sessionDocument(schedule.groupKey, traces, settings, { completion })) as Record<string, unknown>;
    const part = (schedule.targetType === "trace" ? document.trace : document.session) as { capped?: boolean } | undefined;
    return { document, capped: part?.capped === true };
  }

  /** Writes the generation's run; @returns recorded, or already-recorded when another job wrote it first. */
  async function write(schedule: GroupSchedule, generation: number, record: RunRecord<TraceTarget | SessionTarget>): Promise<GroupStatus> {
    return prisma.$transaction(async (tx) => {
      const [locked] = await tx.$queryRaw<{ ranGeneration: number | null }[]>`SELECT "ranGeneration" FROM "GroupSchedule" WHERE id = ${schedule.id}::uuid FOR UPDATE`;
      if (!locked) return "target-gone";
      if (locked.ranGeneration !== null && locked.ranGeneration >= generation) return "already-recorded";
      const target = record.target;
      const current = await tx.run.findMany({ where: { evaluatorId: record.evaluatorId, ...("traceId" in target ? { traceId: target.traceId } : { sessionId: target.sessionId }) }, select: { id: true } });
      await moveRunsToHistory(tx, current.map((r) => r.id), { reason: "group_changed" });
      await insertRuns(tx, [record]);
      const now = clock.now();
      await tx.$executeRaw`
        UPDATE "GroupSchedule" SET "ranGeneration" = ${generation}::int, "ranAt" = ${now}::timestamp(3),
          "dueAt" = CASE WHEN generation = ${generation}::int THEN NULL ELSE "dueAt" END,
          "markerAt" = CASE WHEN generation = ${generation}::int THEN NULL ELSE "markerAt" END,
          "staleSince" = CASE WHEN generation = ${generation}::int THEN NULL ELSE "staleSince" END
        WHERE id = ${schedule.id}::uuid`;
      return "recorded";
    });
  }

  /**
   * Evaluates one due generation. @returns what it did.
   * @throws SandboxFaultError (retried by BullMQ) before the last attempt; database errors (retried).
   */
  return async function processGroup(payload: GroupPayload, job: JobAttempts): Promise<GroupStatus> {
    const schedule = await prisma.groupSchedule.findUnique({ where: { id: payload.targetId } });
    if (!schedule || schedule.workspaceId !== payload.workspaceId) return "target-gone";
    const generation = payload.generation ?? schedule.queuedGeneration ?? schedule.generation;
    if (schedule.ranGeneration !== null && schedule.ranGeneration >= generation) return "already-recorded";
    const evaluator = await prisma.evaluator.findFirst({ where: { id: payload.evaluatorId, workspaceId: payload.workspaceId }, include: { template: { select: { latestVersion: true, limits: true } } } });
    if (evaluator && kindTraits(evaluator.kind).canBePosted) return "external";
    if (!evaluator || !evaluator.templateId || evaluator.target !== schedule.targetType) return "evaluator-gone";
    const settings = settingsOf(schedule.targetType as GroupTargetType, evaluator.groupSettings);
    const completion = completionOf(schedule);
    const traces = await spansOf(schedule);
    const spanCount = traces.reduce((n, t) => n + t.length, 0);
    const startedAt = clock.now();
    const record: RunRecord<TraceTarget | SessionTarget> = {
      workspaceId: schedule.workspaceId, evaluatorId: evaluator.id, templateVersionId: null, target: targetOf(schedule), params: {}, libraryVersions: {}, result: null,
      attempts: job.attemptsMade + 1, startedAt, finishedAt: startedAt, group: { completion, spanCount, capped: false },
    };
    const skip = (reason: string) => write(schedule, generation, { ...record, skipReason: reason });
    if (spanCount === 0) {
      // Its spans are gone (the retention sweep): so is the group.
      await prisma.groupSchedule.deleteMany({ where: { id: schedule.id } });
      return "target-gone";
    }
    if (evaluator.archivedAt) return skip(`the evaluator was archived after the ${schedule.targetType} was taken`);
    if (!evaluator.enabled) return skip(`the evaluator was disabled after the ${schedule.targetType} was taken`);
    const crashes = crashesOf(job);
    if (crashes >= WORKER_CRASH_LIMIT) {
      logger.error({ ...payload, crashes }, "group evaluation job ended its worker repeatedly; recorded as sandbox_error, not run again");
      const message = `the worker running this evaluation ended ${crashes} times before it finished; it is not run again`;
      return write(schedule, generation, { ...record, columns: runColumns({ outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "WorkerCrashed", message, traceback: "" } }) });
    }
    if (evaluator.maxInvocationsPerHour !== null) {
      const since = new Date(clock.now().getTime() - 3_600_000);
      const used = await prisma.run.count({ where: { evaluatorId: evaluator.id, createdAt: { gte: since }, outcome: { not: "skipped" } } });
      if (used >= evaluator.maxInvocationsPerHour) return skip(`${INVOCATION_CAP_REASON} (${evaluator.maxInvocationsPerHour}) reached: ${used} runs in the last hour`);
    }
    const version = await prisma.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId: evaluator.templateId, version: evaluator.pinnedVersion ?? evaluator.template!.latestVersion } } });
    const params = resolveParams(specsOf(version), objectOf(evaluator.params));
    const subject: EvaluationSubject = {
      workspaceId: schedule.workspaceId, evaluatorId: evaluator.id, kind: evaluator.kind, version, params, isolation: evaluator.isolation,
      limits: { own: evaluator.limits, template: evaluator.template?.limits }, dependencies: [], trustDomain: `evaluator:${evaluator.id}`,
    };
    const { document, capped } = documentOf(schedule, traces, settings, completion);
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const [answer] = await deps.core.evaluateBatch(subject, [{ target: schedule.id, inputs: new Map(), lastAttempt, document: () => document }], { beforeExecute: () => job.enteredSandbox?.() ?? Promise.resolve() });
    if (!answer || answer.status === "retry") throw new SandboxFaultError(answer?.status === "retry" ? answer.message : "no answer from the evaluation core");
    const status = await write(schedule, generation, { ...record, ...answer.run, group: { completion, spanCount, capped }, finishedAt: clock.now() });
    if (status === "recorded" && answer.run.result) {
      deps.onRecorded?.({ workspaceId: schedule.workspaceId, targetType: schedule.targetType as GroupTargetType, targetId: schedule.id, evaluatorId: evaluator.id, outcome: answer.run.result.outcome, durationMs: answer.run.result.durationMs });
    }
    return status;
  };
}

/** The group processor. */
export type GroupProcessor = ReturnType<typeof createGroupProcessor>;
