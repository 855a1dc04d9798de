import { LRUCache } from "lru-cache";
import type { Evaluator, TemplateVersion } from "../../generated/prisma/client.js";
import type { Logger } from "../../lib/logger.js";
import type { TargetType } from "../../lib/closed-lists.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { declaredDependencies, inputRunIds, isCurrent, lockSpans, spansInputs, type DeclaredDependency, type SpanInputs } from "../dependencies/input-runs.js";
import type { LiveTarget } from "../spans/live-target.js";
import { specsOf } from "../templates/store.js";
import { objectOf } from "../../lib/json-column.js";
import { resolveParams } from "../templates/values.js";
import { createBatcher, type BatcherOptions, type Settled } from "./batcher.js";
import { deferrableAt, ProviderDelayError, type EvaluationCore } from "../evaluation/evaluate-batch.js";
import type { EvaluationSubject } from "../evaluation/subject.js";
import { blockedSkipReason } from "../evaluators/blocking.js";
import { spendCapReason, spentLastHour } from "../judges/spend.js";
import { INVOCATION_CAP_REASON, runColumns } from "../evaluation/record.js";
import { moveRunsToHistory } from "../evaluation/history.js";
import { columnsOf, insertRuns, type RunRecord, type SpanTarget } from "../evaluation/write.js";
import { kindTraits } from "../evaluators/kinds.js";

/** Thrown to make BullMQ retry a job whose run hit a sandbox fault (never the user's code). */
export class SandboxFaultError extends Error {
  constructor(message: string) {
    super(`sandbox fault, will retry: ${message}`);
    this.name = "SandboxFaultError";
  }
}

/** The job fields the processor reads: attempts made so far and allowed. */
export interface JobAttempts {
  attemptsMade: number;
  opts: { attempts?: number };
  /** Times BullMQ found the job stalled (its worker died or hung while processing it). */
  stalledCounter?: number;
  /** When the job was queued (ms since the epoch): a provider's delay is honoured up to MAX_DEFER_AGE_MS after it. */
  queuedAt?: number;
  /**
   * Times the job's item was handed to a runner (kept in the job's progress), when the job keeps
   * count: a worker holds many jobs waiting for their batch, and only those that were in the
   * sandbox when it died are suspects (see {@link crashesOf}).
   */
  sandboxEntries?: number;
  /** Counts one more hand-over to a runner (before the runner call). */
  enteredSandbox?(): Promise<unknown>;
}

/**
 * How many times a job probably ended its worker: the stalls during which its item was in the
 * sandbox — at most the times it stalled and at most the times it entered the sandbox (a job only
 * held, waiting for its batch, when its worker died is not a suspect). Without a count of entries
 * (a caller that keeps none), every stall counts.
 */
export function crashesOf(job: JobAttempts): number {
  const stalls = job.stalledCounter ?? 0;
  return job.enteredSandbox ? Math.min(stalls, job.sandboxEntries ?? 0) : stalls;
}

/**
 * A job whose processing ended its worker this many times is not run again: its run is recorded as
 * a `sandbox_error` saying so (a poison pill would otherwise take down every worker that takes it).
 */
export const WORKER_CRASH_LIMIT = 2;

/** The ids of an evaluation job (the `evaluate-target` pair payload). */
export interface EvaluationPayload {
  workspaceId: string;
  /** What the run is about (spans today; the processor evaluates span targets). */
  targetType: TargetType;
  /** The target's id (for a span: Span.id). */
  targetId: string;
  evaluatorId: string;
  /** The re-run's tag (scores of a dependency posted again). */
  tag?: string;
}

/** What the processor did with a job (for logs and tests). */
export type ProcessStatus = "recorded" | "already-recorded" | "span-gone" | "evaluator-gone" | "external";

/** A run that was just committed. */
export interface RecordedRun extends EvaluationPayload {
  /** The evaluator's kind (the `evaluator_kind` label; only sandboxed kinds feed the sandbox's item-time histogram). */
  evaluatorKind: string;
  outcome: string;
  /** The item's time in the sandbox, ms. */
  durationMs: number;
  /** The backfill that made the run; absent for a live run. */
  backfillId?: string;
}

/**
 * Called once evaluations are finished on their targets (whatever the outcome), a batch at a time:
 * releases what waits for them.
 */
export type AfterEvaluation = (payloads: readonly EvaluationPayload[]) => Promise<void>;

/** Thrown when a dependency's run kept changing while a dependent ran (retried by BullMQ). */
export class InputsChangedError extends Error {
  constructor() {
    super("the scores of a dependency changed while the evaluator ran; it runs again");
    this.name = "InputsChangedError";
  }
}

/** How live batches are formed (see runs/batcher.ts). Defaults: 200 items, 2 batches per evaluator at once. */
export const LIVE_BATCH: BatcherOptions = { maxBatch: 200, inFlightPerKey: 2 };

/**
 * The live targets this processor takes, by target type (spans/live-target.ts): how it loads a
 * batch's targets and builds their documents. Spans only: traces and sessions are evaluated once
 * they are done, by their own driver (runs/group-processor.ts; the worker routes by `targetType`).
 */
export type LiveTargets = { span: LiveTarget<SpanTarget> };

/** A code evaluator as the processor reads it. */
type CodeEvaluator = Evaluator & { template: { latestVersion: number } | null };

/** One job of a batch. */
interface LiveJob {
  payload: EvaluationPayload;
  job: JobAttempts;
}

/** A job of the batch on its way: its result once known, else the run to record. */
interface Pending {
  index: number;
  job: LiveJob;
  record?: RunRecord<SpanTarget>;
}

const ok = (value: ProcessStatus): Settled<ProcessStatus> => ({ ok: true, value });
const failed = (error: unknown): Settled<ProcessStatus> => ({ ok: false, error });

/**
 * The `evaluate-target` processor, batched: BullMQ delivers one job per (span, evaluator) as
 * before (deterministic job ids, retries, stalled-job recovery, barriers of dependencies), and
 * the jobs taken at the same time by the worker are coalesced per evaluator (runs/batcher.ts).
 * A batch reads its evaluator, its targets (through the {@link LiveTarget} of its target type:
 * for spans, the spans and their traces), earlier runs and dependency inputs with one query
 * each, runs every item in ONE call to the warm runner of its key (as an experiment batch does),
 * writes all runs and scores with ONE set-based statement (evaluation/write.ts), then releases what
 * waits for them. Each job still settles on its own:
 * - exactly once: the run is unique per (span, evaluator); a pair that already has one is
 *   "already-recorded", and a concurrent duplicate loses on the unique index;
 * - a fault of the user's code (user_error, timeout, memory_limit, output_limit, invalid_result)
 *   is recorded on the first attempt and completes its job, whatever the other items did;
 * - a sandbox fault fails only its own job with {@link SandboxFaultError} (BullMQ retries with
 *   backoff) and is recorded on the last attempt; a database error fails the jobs of the batch
 *   (retried by the worker without using attempts);
 * - a job that was in the sandbox when a worker died runs in a batch of its own afterwards, so a
 *   poison pill ends no other job's attempts ({@link crashesOf}; jobs only held are not suspects).
 * With dependencies (modules/dependencies): a job starts once BullMQ released it; the batch
 * reads the dependencies' runs, records `skipped` with the reason when a gate fails, else runs
 * with `document.scores`. Its runs store the dependency runs they read; the write re-checks the
 * inputs under the spans' locks, replaces stale runs, and fails the jobs whose inputs changed
 * meanwhile with {@link InputsChangedError} (retried).
 */
export function createRunProcessor(deps: {
  prisma: PrismaClient;
  logger: Logger;
  /** The evaluation core (the only way to the sandbox). */
  core: EvaluationCore;
  /** How each target type loads and builds its documents (app.ts: `{ span: spanLiveTarget(prisma) }`). */
  targets: LiveTargets;
  /** Releases the dependents of finished evaluations (default: nothing). */
  afterEvaluation?: AfterEvaluation;
  /** Told after a run was committed (metrics, score export); must not throw. */
  onRecorded?: (event: RecordedRun) => void;
  batch?: BatcherOptions;
  /** Told the size of each batch as it starts (metrics); must not throw. */
  onBatch?: (size: number) => void;
}) {
  const { prisma, logger } = deps;
  // Template versions never change: cache them by (template, version) so a batch reads only the evaluator.
  const versions = new LRUCache<string, Promise<TemplateVersion>>({ max: 5_000 });

  /** The version the evaluator runs now: its pin, else its template's latest (read with the evaluator). */
  function versionOf(evaluator: CodeEvaluator): Promise<TemplateVersion> {
    const templateId = evaluator.templateId!;
    const version = evaluator.pinnedVersion ?? evaluator.template!.latestVersion;
    const key = `${templateId}:${version}`;
    let found = versions.get(key);
    if (!found) {
      found = prisma.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId, version } } });
      found.catch(() => versions.delete(key));
      versions.set(key, found);
    }
    return found;
  }

  /**
   * Writes the runs of a dependent under the spans' locks: a run is written only when the
   * dependency runs it read are still the current ones (else its job fails with
   * {@link InputsChangedError}); a stale earlier run is replaced. @returns each record's status or error.
   */
  async function writeDependents(records: RunRecord<SpanTarget>[], declared: DeclaredDependency[], read: Map<string, SpanInputs>): Promise<Settled<ProcessStatus>[]> {
    const spanIds = records.map((r) => r.target.spanId);
    const evaluatorId = records[0]!.evaluatorId;
    return prisma.$transaction(async (tx) => {
      await lockSpans(tx, spanIds);
      const now = await spansInputs(tx, spanIds, declared);
      const existing = new Map(
        (await tx.run.findMany({ where: { evaluatorId, spanId: { in: spanIds } }, select: { id: true, spanId: true, inputRunIds: true } })).map((r) => [r.spanId!, r]),
      );
      const results: Settled<ProcessStatus>[] = [];
      const toWrite: RunRecord<SpanTarget>[] = [];
      const stale: string[] = [];
      for (const record of records) {
        const spanId = record.target.spanId;
        const inputs = read.get(spanId) ?? new Map();
        if (!isCurrent(inputRunIds(inputs), declared, now.get(spanId) ?? new Map())) {
          results.push(failed(new InputsChangedError()));
          continue;
        }
        const found = existing.get(spanId);
        if (found && isCurrent(found.inputRunIds, declared, inputs)) {
          results.push(ok("already-recorded"));
          continue;
        }
        if (found) stale.push(found.id);
        toWrite.push(record);
        results.push(ok("recorded"));
      }
      // The replaced run stays readable as history (Run.history), as a backfill's re-run keeps it.
      await moveRunsToHistory(tx, stale, { reason: "inputs_changed" });
      await insertRuns(tx, toWrite);
      return results;
    });
  }

  /** Writes the records of the batch; @returns spanId → status or error. */
  async function write(records: RunRecord<SpanTarget>[], dependencies: { declared: DeclaredDependency[]; read: Map<string, SpanInputs> } | null, evaluatorKind: string): Promise<Map<string, Settled<ProcessStatus>>> {
    const out = new Map<string, Settled<ProcessStatus>>();
    if (records.length === 0) return out;
    const finishedAt = new Date();
    for (const r of records) r.finishedAt = finishedAt;
    if (dependencies) {
      const results = await writeDependents(records, dependencies.declared, dependencies.read);
      records.forEach((r, i) => out.set(r.target.spanId, results[i]!));
    } else {
      const inserted = new Set((await insertRuns(prisma, records)).map((x) => x.record.target.spanId));
      for (const r of records) out.set(r.target.spanId, ok(inserted.has(r.target.spanId) ? "recorded" : "already-recorded"));
    }
    for (const r of records) {
      if (out.get(r.target.spanId)?.ok && (out.get(r.target.spanId) as { value: ProcessStatus }).value === "recorded") {
        const columns = columnsOf(r);
        deps.onRecorded?.({ workspaceId: r.workspaceId, targetType: "span", targetId: r.target.spanId, evaluatorId: r.evaluatorId, evaluatorKind, outcome: columns.outcome, durationMs: columns.durationMs });
      }
    }
    return out;
  }

  /** Evaluates one batch: jobs of one evaluator, each on a distinct span. */
  async function evaluateBatch(jobs: LiveJob[]): Promise<Settled<ProcessStatus>[]> {
    const { workspaceId, evaluatorId, targetType } = jobs[0]!.payload;
    // A batch holds one target type (its batcher key says so).
    if (targetType !== "span") throw new Error(`the span processor was given a ${targetType} job (runs/group-processor.ts evaluates those)`);
    const live = deps.targets[targetType];
    const results: (Settled<ProcessStatus> | undefined)[] = new Array(jobs.length);
    const spanIds = jobs.map((j) => j.payload.targetId);
    // The batch's reads do not depend on each other: one round of queries side by side (a round
    // trip costs most of a small batch's time), then the dependencies' inputs when there are any.
    const [evaluator, declared, doneRuns, loaded] = await Promise.all([
      prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId }, include: { template: { select: { latestVersion: true, limits: true } } } }),
      declaredDependencies(prisma, evaluatorId),
      prisma.run.findMany({ where: { evaluatorId, spanId: { in: spanIds } }, select: { spanId: true, inputRunIds: true } }),
      live.load(workspaceId, spanIds),
    ]);
    if (evaluator && kindTraits(evaluator.kind).canBePosted) return jobs.map(() => ok("external"));
    if (!evaluator || !evaluator.templateId) {
      await deps.afterEvaluation?.(jobs.map((j) => j.payload));
      return jobs.map(() => ok("evaluator-gone"));
    }
    const read = declared.length ? await spansInputs(prisma, spanIds, declared) : new Map<string, SpanInputs>();
    const inputsOf = (spanId: string): SpanInputs => read.get(spanId) ?? new Map();
    const done = new Map(doneRuns.map((r) => [r.spanId!, r]));

    const base = (j: LiveJob): RunRecord<SpanTarget> => ({
      workspaceId, evaluatorId, templateVersionId: null, target: live.writerTarget(j.payload.targetId), params: {}, libraryVersions: {}, result: null,
      attempts: j.job.attemptsMade + 1, startedAt: new Date(), finishedAt: new Date(),
      ...(declared.length ? { inputRunIds: inputRunIds(inputsOf(j.payload.targetId)), missingDependencies: declared.filter((d) => !inputsOf(j.payload.targetId).get(d.dependsOnId)?.scores.length).map((d) => d.name) } : {}),
    });
    const pending: Pending[] = [];
    jobs.forEach((job, index) => {
      const prior = done.get(job.payload.targetId);
      if (prior && (declared.length === 0 || isCurrent(prior.inputRunIds, declared, inputsOf(job.payload.targetId)))) results[index] = ok("already-recorded");
      else pending.push({ index, job });
    });
    const skip = (p: Pending, reason: string) => (p.record = { ...base(p.job), skipReason: reason });
    for (const p of pending) {
      if (evaluator.archivedAt) skip(p, "the evaluator was archived after the span was matched");
      else if (!evaluator.enabled) skip(p, "the evaluator was disabled after the span was matched");
      else if (crashesOf(p.job.job) >= WORKER_CRASH_LIMIT) {
        const crashes = crashesOf(p.job.job);
        logger.error({ ...p.job.payload, crashes }, "evaluation job ended its worker repeatedly; recorded as sandbox_error, not run again");
        const message = `the worker running this evaluation ended ${crashes} times before it finished; it is not run again`;
        p.record = { ...base(p.job), columns: runColumns({ outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "WorkerCrashed", message, traceback: "" } }) };
      }
    }
    let open = pending.filter((p) => !p.record);
    if (open.length && evaluator.maxInvocationsPerHour !== null) {
      // Runs that ran in the last hour (skipped ones cost nothing and do not count): the batch takes what is left.
      const since = new Date(Date.now() - 3_600_000);
      const used = await prisma.run.count({ where: { evaluatorId, spanId: { not: null }, createdAt: { gte: since }, outcome: { not: "skipped" } } });
      const left = Math.max(0, evaluator.maxInvocationsPerHour - used);
      for (const p of open.slice(left)) skip(p, `${INVOCATION_CAP_REASON} (${evaluator.maxInvocationsPerHour}) reached: ${used} runs in the last hour`);
      open = open.slice(0, left);
    }
    if (open.length && evaluator.maxCostPerHourUsd !== null) {
      const spent = await spentLastHour(prisma, evaluatorId, new Date());
      if (spent >= evaluator.maxCostPerHourUsd) for (const p of open) skip(p, spendCapReason(evaluator.maxCostPerHourUsd, spent));
      open = open.filter((p) => !p.record);
    }

    if (open.length) {
      for (const p of open) if (!loaded.has(p.job.payload.targetId)) results[p.index] = ok("span-gone");
      open = open.filter((p) => loaded.has(p.job.payload.targetId));
      const version = await versionOf(evaluator);
      const params = resolveParams(specsOf(version), objectOf(evaluator.params));
      const subject: EvaluationSubject = {
        workspaceId, evaluatorId, kind: evaluator.kind, version, params, isolation: evaluator.isolation,
        limits: { own: evaluator.limits, template: evaluator.template?.limits }, dependencies: declared, trustDomain: `evaluator:${evaluatorId}`,
        connectionId: evaluator.connectionId, blockedReason: blockedSkipReason(evaluator),
      };
      const evaluated = await deps.core.evaluateBatch(
        subject,
        open.map((p) => {
          const target = loaded.get(p.job.payload.targetId)!;
          const last = p.job.job.attemptsMade + 1 >= (p.job.job.opts.attempts ?? 1);
          return { target: p, inputs: inputsOf(p.job.payload.targetId), lastAttempt: last, deferrable: deferrableAt(p.job.job.queuedAt, Date.now()), document: (scores) => target.document(scores) };
        }),
        { beforeExecute: (targets) => Promise.all(targets.map((p) => p.job.job.enteredSandbox?.())) },
      );
      for (const answer of evaluated) {
        const p = answer.target;
        if (answer.status === "retry") results[p.index] = failed(new SandboxFaultError(answer.message));
        else if (answer.status === "defer") results[p.index] = failed(new ProviderDelayError(answer.untilMs, answer.message));
        else p.record = { ...base(p.job), ...answer.run };
      }
    }

    const records = pending.filter((p) => p.record && !results[p.index]);
    const written = await write(records.map((p) => p.record!), declared.length ? { declared, read } : null, evaluator.kind);
    for (const p of records) results[p.index] = written.get(p.job.payload.targetId)!;
    // Finished in any way but a retry: release what waits for these evaluations.
    const finished = jobs.filter((_, i) => results[i]?.ok);
    if (finished.length) await deps.afterEvaluation?.(finished.map((j) => j.payload));
    return results.map((r) => r ?? failed(new Error("evaluation batch left an item without a result")));
  }

  const batcher = createBatcher<LiveJob, ProcessStatus>({
    run: (_key, jobs) => {
      deps.onBatch?.(jobs.length);
      return evaluateBatch(jobs);
    },
    keyOf: (j) => `${j.payload.workspaceId}/${j.payload.evaluatorId}/${j.payload.targetType}`,
    distinctOf: (j) => j.payload.targetId,
    soloOf: (j) => crashesOf(j.job) > 0,
    options: deps.batch ?? LIVE_BATCH,
  });

  /**
   * Processes one evaluation job (in the batch of the jobs taken with it). @returns what it did.
   * @throws SandboxFaultError (retried) before the last attempt; InputsChangedError and database errors (retried).
   */
  return function processEvaluation(payload: EvaluationPayload, job: JobAttempts): Promise<ProcessStatus> {
    return batcher.submit({ payload, job });
  };
}

/** The evaluation processor. */
export type RunProcessor = ReturnType<typeof createRunProcessor>;
