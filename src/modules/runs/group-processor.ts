import type { GroupSchedule, Span } from "../../generated/prisma/client.js";
import type { Clock } from "../../lib/clock.js";
import type { GroupTargetType } from "../../lib/closed-lists.js";
import { objectOf } from "../../lib/json-column.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { deferrableAt, ProviderDelayError, type EvaluationCore } from "../evaluation/evaluate-batch.js";
import { moveRunsToHistory } from "../evaluation/history.js";
import { INVOCATION_CAP_REASON, runColumns } from "../evaluation/record.js";
import type { EvaluationSubject } from "../evaluation/subject.js";
import { blockedSkipReason } from "../evaluators/blocking.js";
import { spendCapReason, spentLastHour } from "../judges/spend.js";
import { insertRuns, lockGroupRuns, type RunRecord, type SessionTarget, type TraceTarget } from "../evaluation/write.js";
import { settingsOf } from "../evaluators/group-settings.js";
import { kindTraits } from "../evaluators/kinds.js";
import { createBatcher, type BatcherOptions, type Settled } from "./batcher.js";
import { crashesOf, SandboxFaultError, WORKER_CRASH_LIMIT, type JobAttempts, type RecordedRun } from "./processor.js";
import { specsOf } from "../templates/store.js";
import { resolveParams } from "../templates/values.js";
import { groupDocument, type SpanScores } from "../groups/documents.js";
import { spansByTrace } from "../groups/stored.js";
import { completionOf, roundDueMs } from "../groups/waiting.js";
import { declaredDependencies } from "../dependencies/input-runs.js";
import { readGroupDependencies } from "./group-dependencies.js";

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

/** What the group processor did with a job (`waiting`: its dependencies' runs on the group's spans are not all in; it is due again shortly). */
export type GroupStatus = "recorded" | "already-recorded" | "target-gone" | "evaluator-gone" | "external" | "waiting";

/**
 * How long a due group waits for the runs of the span evaluators it depends on (runs still owed on
 * its spans) before it runs without them (their names then in Run.missingDependencies), ms after
 * its due time; it looks again every {@link DEPENDENCY_RECHECK_MS}.
 */
export const GROUP_DEPENDENCY_WAIT_MS = 5 * 60_000;
/** How soon a group waiting for its dependencies is due again (ms). */
export const DEPENDENCY_RECHECK_MS = 1_000;

/** The writer's target of a group run: the trace id or the session key. */
function targetOf(schedule: Pick<GroupSchedule, "targetType" | "groupKey">): TraceTarget | SessionTarget {
  return schedule.targetType === "trace" ? { traceId: schedule.groupKey } : { sessionId: schedule.groupKey };
}

/** One job of a batch: its payload and attempts. */
interface GroupJob {
  payload: GroupPayload;
  job: JobAttempts;
}

/** A job of the batch on its way: its schedule, generation, and the run to record once known. */
interface Pending {
  index: number;
  job: GroupJob;
  schedule: GroupSchedule;
  generation: number;
  record?: RunRecord<TraceTarget | SessionTarget>;
  /** True when a gate skipped the round: its skipped run replaces the group's run, unlike a round not run for the evaluator's sake (disabled, the cap). */
  gateFailed?: boolean;
}

/** True when two runs' `inputRunIds` name the same digests (jsonb keeps its own key order). */
function sameDigests(a: unknown, b: Record<string, string> | undefined): boolean {
  const left = (typeof a === "object" && a !== null ? a : {}) as Record<string, unknown>;
  const right = b ?? {};
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].every((k) => left[k] === right[k]);
}

const ok = (value: GroupStatus): Settled<GroupStatus> => ({ ok: true, value });
const failed = (error: unknown): Settled<GroupStatus> => ({ ok: false, error });

/** How group batches form: at most 200 groups, 2 batches per evaluator at once (documents go to the sandbox in chunks of {@link MAX_CALL_BYTES}). */
export const GROUP_BATCH: BatcherOptions = { maxBatch: 200, inFlightPerKey: 2 };

/**
 * Bytes of documents handed to the sandbox in one call: the runner reads a batch as one frame of
 * at most 64 MiB (sandbox/runner_protocol.py MAX_FRAME_BYTES), and a document may be 8 MiB
 * (maxDocumentBytes' ceiling), so a batch of large groups goes in several calls.
 */
export const MAX_CALL_BYTES = 24 * 1024 * 1024;

/** Splits items in order into chunks whose sizes add up to at most {@link MAX_CALL_BYTES} (an item alone may be larger). */
export function chunksByBytes<T>(items: readonly T[], bytesOf: (item: T) => number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (current.length && bytes + size > MAX_CALL_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/**
 * The driver of trace and session evaluations (docs/evaluation.md § Targets): one job per due
 * generation of a (group, evaluator), queued by the due poller (group-schedule.ts); the jobs a
 * worker holds at once are coalesced per evaluator (batcher.ts), as the span processor does. A
 * batch reads its schedules and evaluator, loads every group's spans in one query (a trace's, or
 * every trace of a session, earliest first), builds each document with the evaluator's caps
 * (groups/documents.ts), evaluates them through the evaluation core (the only way to the sandbox) in
 * one call per chunk of at most {@link MAX_CALL_BYTES}, and writes in ONE transaction under the schedules' row locks: a generation is written
 * once (a duplicate job finds it done), each group's current run moves to RunHistory with reason
 * `group_changed`, the new runs are inserted, and each schedule marks its generation ran (nothing
 * is pending unless spans arrived meanwhile: then it stays stale and its next generation comes due);
 * a round not run (skipped) keeps a run that ran instead of replacing it.
 * Gates as on spans: archived, disabled, the invocation cap and a worker that crashed on it
 * {@link WORKER_CRASH_LIMIT} times are recorded with the reason; a sandbox fault fails its own job
 * with {@link SandboxFaultError} (retried); a database error fails the batch's jobs (retried).
 */
export function createGroupProcessor(deps: { prisma: PrismaClient; logger: Logger; core: EvaluationCore; clock: Clock; onRecorded?: (event: RecordedRun) => void; batch?: BatcherOptions }) {
  const { prisma, logger, clock } = deps;

  /** Each group's spans by trace (traces ordered by their first span), each earliest first: one query for the batch. */
  async function spansOf(workspaceId: string, schedules: readonly GroupSchedule[]): Promise<Map<string, Span[][]>> {
    const traceIds = [...new Set(schedules.flatMap((s) => (s.targetType === "trace" ? [s.groupKey] : s.traceIds)))];
    const spans = await prisma.span.findMany({ where: { workspaceId, traceId: { in: traceIds } }, orderBy: [{ startTime: "asc" }, { createdAt: "asc" }] });
    const byTrace = spansByTrace(spans);
    const out = new Map<string, Span[][]>();
    // A session's traces in the order of their first span (start, then arrival), as groups/stored.ts gives them to tryCode and
    // backfills: not in traceIds' (sorted) order, which would order traces starting in the same millisecond differently.
    const order = new Map([...byTrace.keys()].map((t, i) => [t, i]));
    for (const s of schedules) {
      const ids = (s.targetType === "trace" ? [s.groupKey] : s.traceIds).filter((t) => order.has(t)).sort((a, b) => order.get(a)! - order.get(b)!);
      out.set(s.id, ids.map((t) => byTrace.get(t)!));
    }
    return out;
  }

  /**
   * Writes the batch's runs under the schedules' row locks (taken in ingest's order); @returns each
   * pending's status: recorded, or already-recorded when another job wrote its generation first.
   */
  async function write(pending: readonly Pending[]): Promise<GroupStatus[]> {
    if (pending.length === 0) return [];
    return prisma.$transaction(async (tx) => {
      const ids = [...new Set(pending.map((p) => p.schedule.id))];
      // In the order ingest's upsert locks them (evaluator, target type, group key): the two never wait on each other in a cycle.
      const locked = new Map(
        (await tx.$queryRaw<{ id: string; ranGeneration: number | null }[]>`
          SELECT id, "ranGeneration" FROM "GroupSchedule" WHERE id = ANY(${ids}::uuid[]) ORDER BY "evaluatorId", "targetType", "groupKey" FOR UPDATE`).map((r) => [r.id, r.ranGeneration]),
      );
      const statuses: GroupStatus[] = [];
      const toWrite: Pending[] = [];
      for (const p of pending) {
        if (!locked.has(p.schedule.id)) statuses.push("target-gone");
        else if ((locked.get(p.schedule.id) ?? 0) >= p.generation) statuses.push("already-recorded");
        else {
          statuses.push("recorded");
          toWrite.push(p);
        }
      }
      if (toWrite.length === 0) return statuses;
      const evaluatorId = toWrite[0]!.record!.evaluatorId;
      const traceKeys = toWrite.flatMap((p) => ("traceId" in p.record!.target ? [p.record!.target.traceId] : []));
      const sessionKeys = toWrite.flatMap((p) => ("sessionId" in p.record!.target ? [p.record!.target.sessionId] : []));
      // A backfill may be replacing the same runs: both take the group-run locks before they read them.
      await lockGroupRuns(tx, evaluatorId, traceKeys.length ? "trace" : "session", [...traceKeys, ...sessionKeys]);
      const current = await tx.run.findMany({ where: { evaluatorId, OR: [{ traceId: { in: traceKeys } }, { sessionId: { in: sessionKeys } }] }, select: { id: true, traceId: true, sessionId: true, outcome: true, groupSpanCount: true, inputRunIds: true } });
      const currentOf = new Map(current.map((r) => [r.traceId ?? r.sessionId!, r]));
      // A round not run for the evaluator's sake (disabled, archived, the cap) never replaces a run that ran: the group keeps it, and the round
      // is done. A failed gate does replace it: the run said what the group was before it changed.
      const kept = toWrite.filter((p) => p.record!.skipReason && !p.gateFailed && (currentOf.get(p.schedule.groupKey)?.outcome ?? "skipped") !== "skipped");
      const replacing = toWrite.filter((p) => !kept.includes(p));
      // The same spans read other dependency runs: inputs_changed; else spans arrived: group_changed.
      const replaced = replacing.flatMap((p) => (currentOf.has(p.schedule.groupKey) ? [{ old: currentOf.get(p.schedule.groupKey)!, record: p.record! }] : []));
      const inputsOnly = ({ old, record }: (typeof replaced)[number]) => old.groupSpanCount === record.group?.spanCount && !sameDigests(old.inputRunIds, record.inputRunIds);
      await moveRunsToHistory(tx, replaced.filter(inputsOnly).map((r) => r.old.id), { reason: "inputs_changed" });
      await moveRunsToHistory(tx, replaced.filter((r) => !inputsOnly(r)).map((r) => r.old.id), { reason: "group_changed" });
      await insertRuns(tx, replacing.map((p) => p.record!));
      const done = toWrite.map((p) => ({ id: p.schedule.id, g: p.generation }));
      await tx.$executeRaw`
        UPDATE "GroupSchedule" gs SET "ranGeneration" = d.g, "ranAt" = ${clock.now()}::timestamp(3), requeues = 0,
          "dueAt" = CASE WHEN gs.generation = d.g THEN NULL ELSE gs."dueAt" END,
          "markerAt" = CASE WHEN gs.generation = d.g THEN NULL ELSE gs."markerAt" END,
          "staleSince" = CASE WHEN gs.generation = d.g THEN NULL ELSE gs."staleSince" END
        FROM jsonb_to_recordset(${JSON.stringify(done)}::jsonb) AS d(id uuid, g int) WHERE gs.id = d.id`;
      return statuses;
    });
  }

  /** Evaluates one batch: jobs of one evaluator, each on a distinct group. */
  async function evaluateBatch(jobs: GroupJob[]): Promise<Settled<GroupStatus>[]> {
    const { workspaceId, evaluatorId } = jobs[0]!.payload;
    const results: (Settled<GroupStatus> | undefined)[] = new Array(jobs.length);
    const [schedules, evaluator] = await Promise.all([
      prisma.groupSchedule.findMany({ where: { id: { in: jobs.map((j) => j.payload.targetId) }, workspaceId } }),
      prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId }, include: { template: { select: { latestVersion: true, limits: true } } } }),
    ]);
    if (evaluator && kindTraits(evaluator.kind).canBePosted) return jobs.map(() => ok("external"));
    if (!evaluator || !evaluator.templateId) return jobs.map(() => ok("evaluator-gone"));
    const byId = new Map(schedules.map((s) => [s.id, s]));
    const pending: Pending[] = [];
    jobs.forEach((job, index) => {
      const schedule = byId.get(job.payload.targetId);
      if (!schedule || schedule.evaluatorId !== evaluatorId || evaluator.target !== schedule.targetType) return void (results[index] = ok("target-gone"));
      const generation = job.payload.generation ?? schedule.queuedGeneration ?? schedule.generation;
      if (schedule.ranGeneration !== null && schedule.ranGeneration >= generation) return void (results[index] = ok("already-recorded"));
      pending.push({ index, job, schedule, generation });
    });
    const settings = settingsOf(evaluator.target as GroupTargetType, evaluator.groupSettings);
    const traces = pending.length ? await spansOf(workspaceId, pending.map((p) => p.schedule)) : new Map<string, Span[][]>();
    const gone = pending.filter((p) => (traces.get(p.schedule.id) ?? []).length === 0);
    if (gone.length) {
      // Their spans are gone (the retention sweep): so are the groups.
      await prisma.groupSchedule.deleteMany({ where: { id: { in: gone.map((p) => p.schedule.id) } } });
      for (const p of gone) results[p.index] = ok("target-gone");
    }
    let live = pending.filter((p) => !gone.includes(p));
    const declared = live.length ? await declaredDependencies(prisma, evaluatorId) : [];
    const scoresOf = new Map<Pending, SpanScores>();
    const missingOf = new Map<Pending, string[]>();
    /** What each round read of its dependencies (groups/input-digest.ts), kept as the run's inputRunIds. */
    const digestsOf = new Map<Pending, Record<string, string>>();
    /** Rounds whose gate did not pass, with the reason. */
    const gateFailures = new Map<Pending, string>();
    if (declared.length) {
      // Span evaluators this one depends on: wait while their runs on the group's spans are owed (bounded), then read their scores per span.
      const spanRows = live.flatMap((p) => traces.get(p.schedule.id)!.flat());
      const ids = spanRows.map((s) => s.id);
      const dependsOn = declared.map((d) => d.dependsOnId);
      const owed = await prisma.owedEvaluation.findMany({ where: { targetType: "span", targetId: { in: ids }, evaluatorId: { in: dependsOn } }, select: { targetId: true } });
      const owedSpans = new Set(owed.map((o) => o.targetId));
      const now = clock.now().getTime();
      const waiting = live.filter((p) => traces.get(p.schedule.id)!.some((t) => t.some((span) => owedSpans.has(span.id))) && now - roundDueMs(p.schedule) < GROUP_DEPENDENCY_WAIT_MS);
      if (waiting.length) {
        // Not queued any more, due again shortly: unless a newer round is pending already (it has its own due time).
        const rows = waiting.map((p) => ({ id: p.schedule.id, g: p.generation }));
        await prisma.$transaction(async (tx) => {
          await tx.$queryRaw`SELECT 1 FROM "GroupSchedule" WHERE id = ANY(${rows.map((r) => r.id)}::uuid[]) ORDER BY "evaluatorId", "targetType", "groupKey" FOR UPDATE`;
          await tx.$executeRaw`
            UPDATE "GroupSchedule" gs SET "queuedGeneration" = gs."ranGeneration", "dueAt" = ${new Date(now + DEPENDENCY_RECHECK_MS)}::timestamp(3)
            FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS w(id uuid, g int) WHERE gs.id = w.id AND gs.generation = w.g AND gs."queuedGeneration" = w.g`;
        });
        for (const p of waiting) results[p.index] = ok("waiting");
        live = live.filter((p) => !waiting.includes(p));
      }
      const reads = await readGroupDependencies(prisma, declared, new Map(live.map((p) => [p, traces.get(p.schedule.id)!])));
      for (const p of live) {
        const read = reads.get(p)!;
        scoresOf.set(p, read.scores);
        missingOf.set(p, read.missing);
        digestsOf.set(p, read.digests);
        if (read.gateFailure) gateFailures.set(p, read.gateFailure);
      }
    }
    const startedAt = clock.now();
    for (const p of live) {
      const spanCount = traces.get(p.schedule.id)!.reduce((n, t) => n + t.length, 0);
      p.record = {
        workspaceId, evaluatorId, templateVersionId: null, target: targetOf(p.schedule), params: {}, libraryVersions: {}, result: null,
        attempts: p.job.job.attemptsMade + 1, startedAt, finishedAt: startedAt, group: { completion: completionOf(p.schedule), spanCount, capped: false },
        ...(declared.length ? { missingDependencies: missingOf.get(p) ?? [], inputRunIds: digestsOf.get(p) ?? {} } : {}),
      };
    }
    const skip = (p: Pending, reason: string) => (p.record = { ...p.record!, skipReason: reason });
    for (const p of live) {
      const crashes = crashesOf(p.job.job);
      if (evaluator.archivedAt) skip(p, `the evaluator was archived after the ${p.schedule.targetType} was taken`);
      else if (!evaluator.enabled) skip(p, `the evaluator was disabled after the ${p.schedule.targetType} was taken`);
      else if (crashes >= WORKER_CRASH_LIMIT) {
        logger.error({ ...p.job.payload, crashes }, "group evaluation job ended its worker repeatedly; recorded as sandbox_error, not run again");
        const message = `the worker running this evaluation ended ${crashes} times before it finished; it is not run again`;
        p.record = { ...p.record!, columns: runColumns({ outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "WorkerCrashed", message, traceback: "" } }) };
      } else if (gateFailures.has(p)) {
        skip(p, gateFailures.get(p)!);
        p.gateFailed = true;
      }
    }
    let open = live.filter((p) => !p.record!.skipReason && !p.record!.columns);
    if (open.length && evaluator.maxInvocationsPerHour !== null) {
      const since = new Date(clock.now().getTime() - 3_600_000);
      // A group's re-run moves its earlier run to history: those ran too.
      const [current, replaced] = await Promise.all([
        prisma.run.count({ where: { evaluatorId, createdAt: { gte: since }, outcome: { not: "skipped" } } }),
        prisma.runHistory.count({ where: { evaluatorId, createdAt: { gte: since }, outcome: { not: "skipped" } } }),
      ]);
      const used = current + replaced;
      const left = Math.max(0, evaluator.maxInvocationsPerHour - used);
      for (const p of open.slice(left)) skip(p, `${INVOCATION_CAP_REASON} (${evaluator.maxInvocationsPerHour}) reached: ${used} runs in the last hour`);
      open = open.slice(0, left);
    }
    if (open.length && evaluator.maxCostPerHourUsd !== null) {
      const spent = await spentLastHour(prisma, evaluatorId, clock.now());
      if (spent >= evaluator.maxCostPerHourUsd) for (const p of open) skip(p, spendCapReason(evaluator.maxCostPerHourUsd, spent));
      open = open.filter((p) => !p.record!.skipReason);
    }
    if (open.length) {
      const version = await prisma.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId: evaluator.templateId, version: evaluator.pinnedVersion ?? evaluator.template!.latestVersion } } });
      const params = resolveParams(specsOf(version), objectOf(evaluator.params));
      const subject: EvaluationSubject = {
        workspaceId, evaluatorId, kind: evaluator.kind, version, params, isolation: evaluator.isolation,
        limits: { own: evaluator.limits, template: evaluator.template?.limits }, dependencies: [], trustDomain: `evaluator:${evaluatorId}`,
        connectionId: evaluator.connectionId, blockedReason: blockedSkipReason(evaluator),
      };
      const built = new Map(open.map((p) => [p, groupDocument(p.schedule.targetType as GroupTargetType, p.schedule.groupKey, traces.get(p.schedule.id)!, settings, { completion: completionOf(p.schedule), ...(declared.length ? { scores: scoresOf.get(p) } : {}) })]));
      // One core call per chunk of at most MAX_CALL_BYTES of documents: the runner reads a batch as one frame (64 MiB at most).
      for (const chunk of chunksByBytes(open, (p) => Buffer.byteLength(JSON.stringify(built.get(p)!.document), "utf8"))) {
        const evaluated = await deps.core.evaluateBatch(
          subject,
          chunk.map((p) => ({ target: p, inputs: new Map(), lastAttempt: p.job.job.attemptsMade + 1 >= (p.job.job.opts.attempts ?? 1), deferrable: deferrableAt(p.job.job.queuedAt, Date.now()), document: () => built.get(p)!.document })),
          { beforeExecute: (targets) => Promise.all(targets.map((p) => p.job.job.enteredSandbox?.())) },
        );
        const finishedAt = clock.now();
        for (const answer of evaluated) {
          const p = answer.target;
          if (answer.status === "retry") results[p.index] = failed(new SandboxFaultError(answer.message));
          else if (answer.status === "defer") results[p.index] = failed(new ProviderDelayError(answer.untilMs, answer.message));
          else p.record = { ...p.record!, ...answer.run, group: { ...p.record!.group!, capped: built.get(p)!.capped }, finishedAt };
        }
      }
    }
    const toWrite = live.filter((p) => !results[p.index]);
    const statuses = await write(toWrite);
    toWrite.forEach((p, i) => {
      results[p.index] = ok(statuses[i]!);
      const result = p.record!.result;
      if (statuses[i] === "recorded" && result) deps.onRecorded?.({ workspaceId, targetType: p.schedule.targetType as GroupTargetType, targetId: p.schedule.id, evaluatorId, evaluatorKind: evaluator.kind, outcome: result.outcome, durationMs: result.durationMs });
    });
    return results.map((r) => r ?? failed(new Error("group batch left a job without a result")));
  }

  const batcher = createBatcher<GroupJob, GroupStatus>({
    run: (_key, jobs) => evaluateBatch(jobs),
    keyOf: (j) => `${j.payload.workspaceId}/${j.payload.evaluatorId}/${j.payload.targetType}`,
    distinctOf: (j) => j.payload.targetId,
    soloOf: (j) => crashesOf(j.job) > 0,
    options: deps.batch ?? GROUP_BATCH,
  });

  /**
   * Processes one due generation (in the batch of the jobs taken with it). @returns what it did.
   * @throws SandboxFaultError (retried by BullMQ) before the last attempt; database errors (retried).
   */
  return function processGroup(payload: GroupPayload, job: JobAttempts): Promise<GroupStatus> {
    return batcher.submit({ payload, job });
  };
}

/** The group processor. */
export type GroupProcessor = ReturnType<typeof createGroupProcessor>;
