import type { Span } from "../../generated/prisma/client.js";
import type { GroupTargetType } from "../../lib/closed-lists.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { deferAnswer, type BatchAttempt } from "../experiments/batch-processor.js";
import { declaredDependencies } from "../dependencies/input-runs.js";
import { deferrableAt, type EvaluationCore } from "../evaluation/evaluate-batch.js";
import { memberSubject, type FixedMember } from "../evaluation/subject.js";
import type { SessionTarget, TraceTarget } from "../evaluation/write.js";
import { settingsOf } from "../evaluators/group-settings.js";
import { groupDocument } from "../groups/documents.js";
import { sessionsTracesOf, spansByTrace } from "../groups/stored.js";
import { chunksByBytes } from "../runs/group-processor.js";
import { readGroupDependencies, type GroupDependencyReads } from "../runs/group-dependencies.js";
import { objectOf } from "../../lib/json-column.js";
import type { RecordedRun } from "../runs/processor.js";
import { recordBackfillGroupRuns, type BackfillGroupRunRecord, type BackfillGroupSchedule } from "./record.js";

/** What one batch of a trace or session backfill did (the batch processor's outcome, and what it holds now). */
export interface GroupBatchOutcome {
  recorded: number;
  superseded: number;
  /** Groups left as they were: a current run and no rerun, this backfill's run already, or no span any more. */
  skipped: number;
  /** Runs left for the job's next attempt (sandbox faults). */
  deferred: number;
  /** The latest time a provider asked to be called again (ms since the epoch): the job is delayed, not retried. */
  delayUntil?: number;
  stopped: boolean;
  /** Groups of the batch that hold this backfill's run now (a retry counts the same). */
  ours: number;
}

/** A backfill's trace or session evaluator, as the batch processor loads it. */
export type GroupMember = FixedMember & { evaluatorId: string; evaluator: FixedMember["evaluator"] & { target: string; groupSettings: unknown } };

/** The writer's target of a group key. */
function targetOf(type: GroupTargetType, key: string): TraceTarget | SessionTarget {
  return type === "trace" ? { traceId: key } : { sessionId: key };
}

/**
 * One batch of a trace or session backfill (docs/evaluation.md § Backfills): each of its groups
 * (BackfillSpan.groupKey) is read whole from the stored spans now — a trace's spans, or every trace
 * of a session by the evaluator's session keys, as tryCode reads them (groups/stored.ts) — and
 * evaluated with the document the live group processor builds (groups/documents.ts with the
 * evaluator's caps, the current scores of the span evaluators it depends on keyed traceId:spanId),
 * without `completion` (Run.completion is null: the backfill, not a completion rule, ran it), in
 * one core call per chunk of at most MAX_CALL_BYTES. Groups with a current run are skipped unless
 * `rerun`; those with this backfill's run always are, so a retried batch redoes only what did not
 * commit. Written by {@link recordBackfillGroupRuns} in one transaction.
 */
export async function runGroupBatch(
  deps: { prisma: PrismaClient; core: EvaluationCore; onRecorded?: (run: RecordedRun) => void; live: () => Promise<boolean> },
  backfill: { id: string; workspaceId: string; rerun: boolean },
  member: GroupMember,
  keys: readonly string[],
  attempt: BatchAttempt,
): Promise<GroupBatchOutcome> {
  // No afterEvaluation hook here: no evaluator depends on a trace or session evaluator (dependencies/store.ts refuses it).
  const { prisma, core } = deps;
  const outcome: GroupBatchOutcome = { recorded: 0, superseded: 0, skipped: 0, deferred: 0, stopped: false, ours: 0 };
  const type = member.evaluator.target as GroupTargetType;
  const settings = settingsOf(type, member.evaluator.groupSettings);
  const evaluatorId = member.evaluatorId;
  const unique = [...new Set(keys)];
  const keyWhere = type === "trace" ? { traceId: { in: unique } } : { sessionId: { in: unique } };
  const currentOf = async () => new Map((await prisma.run.findMany({ where: { evaluatorId, ...keyWhere }, select: { traceId: true, sessionId: true, backfillId: true } })).map((r) => [(r.traceId ?? r.sessionId)!, r.backfillId]));
  const current = await currentOf();
  const todo = unique.filter((key) => !current.has(key) || (current.get(key) !== backfill.id && backfill.rerun));
  outcome.skipped = unique.length - todo.length;
  if (todo.length) {
    if (!(await deps.live())) return { ...outcome, stopped: true };
    const groups = await groupsOf(prisma, backfill.workspaceId, evaluatorId, type, todo, settings.sessionKeyAttributes);
    const present = todo.filter((key) => groups.has(key));
    outcome.skipped += todo.length - present.length; // their spans are gone (retention)
    const declared = await declaredDependencies(prisma, evaluatorId);
    const read = declared.length ? await readGroupDependencies(prisma, declared, groups) : new Map<string, GroupDependencyReads>();
    const schedules = schedulesOf(groups, settings);
    const readOf = (key: string) => (declared.length ? { missingDependencies: read.get(key)!.missing, inputRunIds: read.get(key)!.digests } : {});
    // A gate that does not pass skips the group, as live: recorded with the reason, not run.
    const gated = present.filter((key) => read.get(key)?.gateFailure);
    if (gated.length) {
      const now = new Date();
      const skipped: BackfillGroupRunRecord[] = gated.map((key) => ({
        workspaceId: backfill.workspaceId, evaluatorId, attempts: attempt.attempt, target: targetOf(type, key), templateVersionId: member.templateVersion.id, params: objectOf(member.params),
        libraryVersions: {}, result: null, skipReason: read.get(key)!.gateFailure!, startedAt: now, finishedAt: now,
        group: { completion: null, spanCount: groups.get(key)!.reduce((n, t) => n + t.length, 0), capped: false }, ...readOf(key),
      }));
      const written = await recordBackfillGroupRuns(prisma, backfill, skipped, schedules);
      if (written.stopped) return { ...outcome, stopped: true };
      outcome.recorded += written.written.length;
      outcome.superseded += written.superseded;
    }
    const runnable = present.filter((key) => !gated.includes(key));
    const built = new Map(runnable.map((key) => {
      const traces = groups.get(key)!;
      return [key, { ...groupDocument(type, key, traces, settings, declared.length ? { scores: read.get(key)!.scores } : {}), spanCount: traces.reduce((n, t) => n + t.length, 0) }];
    }));
    // As live: the dependencies are read from the document's scores, not as ctx inputs.
    const subject = memberSubject(backfill.workspaceId, evaluatorId, member, []);
    for (const chunk of chunksByBytes(runnable, (key) => Buffer.byteLength(JSON.stringify(built.get(key)!.document), "utf8"))) {
      const evaluated = await core.evaluateBatch(subject, chunk.map((key) => ({ target: { id: key }, inputs: new Map(), lastAttempt: attempt.last, deferrable: deferrableAt(attempt.queuedAt, Date.now()), document: () => built.get(key)!.document })));
      const records: BackfillGroupRunRecord[] = [];
      for (const answer of evaluated) {
        const key = answer.target.id;
        if (answer.status !== "done") deferAnswer(outcome, answer);
        else {
          const b = built.get(key)!;
          records.push({
            workspaceId: backfill.workspaceId, evaluatorId, attempts: attempt.attempt, target: targetOf(type, key), ...answer.run,
            group: { completion: null, spanCount: b.spanCount, capped: b.capped },
            ...readOf(key),
          });
        }
      }
      const written = await recordBackfillGroupRuns(prisma, backfill, records, schedules);
      if (written.stopped) return { ...outcome, stopped: true };
      outcome.recorded += written.written.length;
      outcome.superseded += written.superseded;
      for (const run of written.written) {
        deps.onRecorded?.({ workspaceId: backfill.workspaceId, targetType: type, targetId: run.groupKey, evaluatorId, evaluatorKind: member.evaluator.kind, outcome: run.outcome, durationMs: run.columns.durationMs, backfillId: backfill.id });
      }
    }
  }
  outcome.ours = [...(await currentOf()).values()].filter((id) => id === backfill.id).length;
  return outcome;
}

/** The schedule each group starts from when the evaluator has none for it (record.ts). */
function schedulesOf(groups: ReadonlyMap<string, Span[][]>, settings: { quietPeriodMs: number; maxWaitMs: number }): Map<string, BackfillGroupSchedule> {
  return new Map([...groups].map(([key, traces]) => {
    const arrivals = traces.flat().map((s) => s.createdAt.getTime());
    return [key, { traceIds: traces.map((t) => t[0]!.traceId), firstSpanAt: new Date(Math.min(...arrivals)), lastSpanAt: new Date(Math.max(...arrivals)), spanCount: arrivals.length, quietPeriodMs: settings.quietPeriodMs, maxWaitMs: settings.maxWaitMs }];
  }));
}

/** Each group's spans by trace (traces in the order of their first span, each earliest first): a trace's, or a session's traces (by the evaluator's keys and its own schedules). */
async function groupsOf(prisma: PrismaClient, workspaceId: string, evaluatorId: string, type: GroupTargetType, keys: readonly string[], sessionKeys: readonly string[]): Promise<Map<string, Span[][]>> {
  if (type === "session") return sessionsTracesOf(prisma, workspaceId, keys, sessionKeys, evaluatorId);
  const spans = await prisma.span.findMany({ where: { workspaceId, traceId: { in: [...keys] } }, orderBy: [{ startTime: "asc" }, { createdAt: "asc" }] });
  return new Map([...spansByTrace(spans)].map(([traceId, list]) => [traceId, [list]]));
}
