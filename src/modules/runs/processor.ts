import { LRUCache } from "lru-cache";
import type { Evaluator, Prisma, TemplateVersion } from "../../generated/prisma/client.js";
import type { Executor } from "../../execution/index.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { declaredDependencies, documentScores, failedGate, inputRunIds, isCurrent, lockSpan, spanInputs, type DeclaredDependency, type SpanInputs } from "../dependencies/inputs.js";
import { spanToDocument } from "../spans/document.js";
import type { SpanService } from "../spans/service.js";
import { specsOf } from "../templates/store.js";
import { isUniqueViolation } from "../../lib/unique-violation.js";
import { objectOf } from "../../lib/json-column.js";
import { resolveParams } from "../templates/values.js";
import type { RunPreparer } from "./prepare.js";
import { INVOCATION_CAP_REASON, runColumns, SKIPPED_COLUMNS, USER_FAULTS, type RunColumns } from "./record.js";

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
}

/**
 * A job whose processing ended its worker this many times is not run again: its run is recorded as
 * a `sandbox_error` saying so (a poison pill would otherwise take down every worker that takes it).
 */
export const WORKER_CRASH_LIMIT = 2;

/** The ids of an evaluation job (the `evaluate-span` payload). */
export interface EvaluationPayload {
  workspaceId: string;
  spanId: string;
  evaluatorId: string;
  /** The re-run's tag (scores of a dependency posted again). */
  tag?: string;
}

/** What the processor did with a job (for logs and tests). */
export type ProcessStatus = "recorded" | "already-recorded" | "span-gone" | "evaluator-gone" | "external";

/** A run that was just committed. */
export interface RecordedRun extends EvaluationPayload {
  outcome: string;
  /** The item's time in the sandbox, ms. */
  durationMs: number;
}

/** Called once an evaluation is finished on a span (whatever the outcome): releases what waits for it. */
export type AfterEvaluation = (payload: EvaluationPayload) => Promise<void>;

/** Thrown when a dependency's run kept changing while a dependent ran (retried by BullMQ). */
export class InputsChangedError extends Error {
  constructor() {
    super("the scores of a dependency changed while the evaluator ran; it runs again");
    this.name = "InputsChangedError";
  }
}

/** What a dependent read: its declared dependencies and their runs on the span. */
interface DependencyInputs {
  declared: DeclaredDependency[];
  inputs: SpanInputs;
}

/** A code evaluator as the processor reads it. */
type CodeEvaluator = Evaluator & { template: { latestVersion: number } | null };

/** What one run records beside its columns. */
interface RunContext {
  payload: EvaluationPayload;
  attempt: number;
  startedAt: Date;
  templateVersionId: string | null;
  params: Record<string, unknown>;
  libraryVersions: Record<string, number>;
  skipReason?: string;
  /** Set for an evaluator with dependencies: what it read (the write checks it is still current). */
  dependencies?: DependencyInputs;
}

/**
 * The `evaluate-span` processor: runs one evaluator on one span in the warm runner for its key
 * and writes the run and its scores in one transaction.
 *
 * Exactly once: the run is unique per (span, evaluator); a job for a pair that already has a run
 * changes nothing, and a concurrent duplicate loses on the unique index. A fault of the user's
 * code (user_error, timeout, memory_limit, output_limit, invalid_result) is recorded on the first
 * attempt and not retried; a sandbox fault throws {@link SandboxFaultError} so BullMQ retries with
 * backoff, and is recorded on the last attempt. Database errors throw and are retried too.
 *
 * With dependencies (modules/dependencies): the job starts once BullMQ released it (every
 * dependency finished on the span). It reads the dependencies' runs, records `skipped` with the
 * reason when a gate fails, else runs with `document.scores` = their scores and
 * `dependencies` = the declared names (ctx.score of any other evaluator is an error). Its run
 * stores the dependency runs it read; a run whose inputs were replaced since (scores posted
 * again) is stale and is replaced by the next job, and the write re-checks the inputs under the
 * span's lock. Finished in any way, it calls `afterEvaluation` to release its dependents.
 */
export function createRunProcessor(deps: {
  prisma: PrismaClient;
  logger: Logger;
  /** The shared executor (created on first use). */
  execution: () => Executor;
  spans: Pick<SpanService, "traceSpans">;
  preparer: RunPreparer;
  /** Releases the dependents of a finished evaluation (default: nothing). */
  afterEvaluation?: AfterEvaluation;
  /** Told after a run was committed (metrics, score export); must not throw. */
  onRecorded?: (event: RecordedRun) => void;
}) {
  const { prisma, logger } = deps;
  // Template versions never change: cache them by (template, version) so a job reads only the evaluator.
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

  /** The run row of a result. */
  function runData(ctx: RunContext, columns: RunColumns): Prisma.RunUncheckedCreateInput {
    const { workspaceId, spanId, evaluatorId } = ctx.payload;
    return {
      workspaceId,
      evaluatorId,
      spanId,
      templateVersionId: ctx.templateVersionId,
      libraryVersions: ctx.libraryVersions,
      params: ctx.params as Prisma.InputJsonValue,
      outcome: columns.outcome,
      skipReason: ctx.skipReason ?? null,
      stdout: columns.stdout,
      stderr: columns.stderr,
      errorType: columns.errorType,
      errorMessage: columns.errorMessage,
      errorTraceback: columns.errorTraceback,
      durationMs: columns.durationMs,
      outputTruncated: columns.outputTruncated,
      attempts: ctx.attempt,
      inputRunIds: ctx.dependencies ? inputRunIds(ctx.dependencies.inputs) : {},
      missingDependencies: ctx.dependencies ? ctx.dependencies.declared.filter((d) => !ctx.dependencies!.inputs.get(d.dependsOnId)?.scores.length).map((d) => d.name) : [],
      startedAt: ctx.startedAt,
      finishedAt: new Date(),
      scores: {
        create: columns.scores.map((s) => ({
          ...s,
          value: s.value as Prisma.InputJsonValue,
          metadata: (s.metadata ?? undefined) as Prisma.InputJsonValue | undefined,
          workspaceId,
          evaluatorId,
          spanId,
        })),
      },
    };
  }

  /**
   * Writes the run of a dependent under the span's lock: only when the dependency runs it read
   * are still the current ones (else {@link InputsChangedError}), replacing a stale run.
   */
  async function writeDependent(ctx: RunContext, columns: RunColumns): Promise<ProcessStatus> {
    const { spanId, evaluatorId } = ctx.payload;
    const { declared, inputs } = ctx.dependencies!;
    return prisma.$transaction(async (tx) => {
      await lockSpan(tx, spanId);
      if (!isCurrent(inputRunIds(inputs), declared, await spanInputs(tx, spanId, declared))) throw new InputsChangedError();
      const existing = await tx.run.findUnique({ where: { spanId_evaluatorId: { spanId, evaluatorId } }, select: { id: true, inputRunIds: true } });
      if (existing && isCurrent(existing.inputRunIds, declared, inputs)) return "already-recorded" as const;
      if (existing) await tx.run.delete({ where: { id: existing.id } });
      await tx.run.create({ data: runData(ctx, columns) });
      return "recorded" as const;
    });
  }

  async function write(ctx: RunContext, columns: RunColumns): Promise<ProcessStatus> {
    const status = await writeOnce(ctx, columns);
    if (status === "recorded") deps.onRecorded?.({ ...ctx.payload, outcome: columns.outcome, durationMs: columns.durationMs });
    return status;
  }

  async function writeOnce(ctx: RunContext, columns: RunColumns): Promise<ProcessStatus> {
    if (ctx.dependencies) return writeDependent(ctx, columns);
    try {
      await prisma.run.create({ data: runData(ctx, columns) });
      return "recorded";
    } catch (error) {
      if (isUniqueViolation(error)) return "already-recorded";
      throw error;
    }
  }

  function skipped(ctx: RunContext, reason: string): Promise<ProcessStatus> {
    return write({ ...ctx, skipReason: reason }, SKIPPED_COLUMNS);
  }

  async function run(ctx: RunContext, evaluator: CodeEvaluator, isLastAttempt: boolean): Promise<ProcessStatus> {
    const { workspaceId, spanId } = ctx.payload;
    const span = await prisma.span.findFirst({ where: { id: spanId, workspaceId } });
    if (!span) return "span-gone";
    const version = await versionOf(evaluator);
    const params = resolveParams(specsOf(version), objectOf(evaluator.params));
    const gate = ctx.dependencies ? failedGate(ctx.dependencies.declared, ctx.dependencies.inputs) : null;
    if (gate) return skipped({ ...ctx, templateVersionId: version.id, params }, gate);
    const prepared = await deps.preparer.prepare(workspaceId, version, undefined, evaluator.isolation === "strict" ? "strict" : "warm");
    const scores = ctx.dependencies ? documentScores(ctx.dependencies.declared, ctx.dependencies.inputs) : {};
    const document = spanToDocument(span, await deps.spans.traceSpans(workspaceId, span.traceId), { scores });
    const full = { ...ctx, templateVersionId: version.id, params, libraryVersions: prepared.libraryVersions, startedAt: new Date() };
    const names = ctx.dependencies?.declared.map((d) => d.name) ?? [];
    const [result] = await deps.execution().execute({ ...prepared.key, trustDomain: `evaluator:${ctx.payload.evaluatorId}` }, [{ workspaceId, document: document as Record<string, unknown>, params, dependencies: names }]);
    if (result!.outcome === "sandbox_error" && !isLastAttempt) throw new SandboxFaultError(result!.error?.message ?? "unknown");
    const columns = runColumns(result!);
    if (USER_FAULTS.includes(columns.outcome)) {
      logger.info({ ...ctx.payload, outcome: columns.outcome, errorType: columns.errorType }, "evaluator failed on a span (recorded, not retried)");
    }
    return write(full, columns);
  }

  /** What a dependent reads before it runs; null for an evaluator with no dependencies. */
  async function readDependencies(payload: EvaluationPayload): Promise<DependencyInputs | null> {
    const declared = await declaredDependencies(prisma, payload.evaluatorId);
    if (declared.length === 0) return null;
    return { declared, inputs: await spanInputs(prisma, payload.spanId, declared) };
  }

  /** Processes a job of a code evaluator (after the external and gone cases). */
  async function processCode(payload: EvaluationPayload, evaluator: CodeEvaluator, job: JobAttempts): Promise<ProcessStatus> {
    const { spanId, evaluatorId } = payload;
    const dependencies = await readDependencies(payload);
    const done = await prisma.run.findUnique({ where: { spanId_evaluatorId: { spanId, evaluatorId } }, select: { id: true, inputRunIds: true } });
    if (done && (!dependencies || isCurrent(done.inputRunIds, dependencies.declared, dependencies.inputs))) return "already-recorded";
    const attempt = job.attemptsMade + 1;
    const ctx: RunContext = { payload, attempt, startedAt: new Date(), templateVersionId: null, params: {}, libraryVersions: {}, ...(dependencies ? { dependencies } : {}) };
    if (evaluator.archivedAt) return skipped(ctx, "the evaluator was archived after the span was matched");
    if (!evaluator.enabled) return skipped(ctx, "the evaluator was disabled after the span was matched");
    const crashes = job.stalledCounter ?? 0;
    if (crashes >= WORKER_CRASH_LIMIT) {
      logger.error({ ...payload, crashes }, "evaluation job ended its worker repeatedly; recorded as sandbox_error, not run again");
      const message = `the worker running this evaluation ended ${crashes} times before it finished; it is not run again`;
      return write(ctx, runColumns({ outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "WorkerCrashed", message, traceback: "" } }));
    }
    if (evaluator.maxInvocationsPerHour !== null) {
      // Runs that ran in the last hour (skipped ones cost nothing and do not count).
      const since = new Date(Date.now() - 3_600_000);
      const used = await prisma.run.count({ where: { evaluatorId, spanId: { not: null }, createdAt: { gte: since }, outcome: { not: "skipped" } } });
      if (used >= evaluator.maxInvocationsPerHour) {
        return skipped(ctx, `${INVOCATION_CAP_REASON} (${evaluator.maxInvocationsPerHour}) reached: ${used} runs in the last hour`);
      }
    }
    return run(ctx, evaluator, attempt >= (job.opts.attempts ?? 1));
  }

  /**
   * Processes one evaluation job. @returns what it did.
   * @throws SandboxFaultError (retried) before the last attempt; InputsChangedError and database errors (retried).
   */
  return async function processEvaluation(payload: EvaluationPayload, job: JobAttempts): Promise<ProcessStatus> {
    const { workspaceId, evaluatorId } = payload;
    const evaluator = await prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId }, include: { template: { select: { latestVersion: true } } } });
    if (evaluator?.kind === "external") return "external";
    const status = evaluator && evaluator.templateId ? await processCode(payload, evaluator, job) : "evaluator-gone";
    await deps.afterEvaluation?.(payload);
    return status;
  };
}

/** The evaluation processor. */
export type RunProcessor = ReturnType<typeof createRunProcessor>;
