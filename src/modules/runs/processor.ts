import type { Evaluator, Prisma, TemplateVersion } from "../../generated/prisma/client.js";
import type { Executor } from "../../execution/index.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { spanToDocument } from "../spans/document.js";
import type { SpanService } from "../spans/service.js";
import { isUniqueViolation, objectOf, specsOf } from "../templates/store.js";
import { resolveParams } from "../templates/values.js";
import type { RunPreparer } from "./prepare.js";
import { runColumns, USER_FAULTS, type RunColumns } from "./record.js";

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
}

/** The ids of an evaluation job (the `evaluate-span` payload). */
export interface EvaluationPayload {
  workspaceId: string;
  spanId: string;
  evaluatorId: string;
}

/** What the processor did with a job (for logs and tests). */
export type ProcessStatus = "recorded" | "already-recorded" | "span-gone" | "evaluator-gone";

/** What one run records beside its columns. */
interface RunContext {
  payload: EvaluationPayload;
  attempt: number;
  startedAt: Date;
  templateVersionId: string | null;
  params: Record<string, unknown>;
  libraryVersions: Record<string, number>;
  skipReason?: string;
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
 */
export function createRunProcessor(deps: {
  prisma: PrismaClient;
  logger: Logger;
  /** The shared executor (created on first use). */
  execution: () => Executor;
  spans: Pick<SpanService, "traceSpans">;
  preparer: RunPreparer;
}) {
  const { prisma, logger } = deps;
  // Template versions never change: cache them by (template, version) so a job reads only the evaluator.
  const versions = new Map<string, Promise<TemplateVersion>>();

  /** The version the evaluator runs now: its pin, else its template's latest (read with the evaluator). */
  function versionOf(evaluator: Evaluator & { template: { latestVersion: number } }): Promise<TemplateVersion> {
    const version = evaluator.pinnedVersion ?? evaluator.template.latestVersion;
    const key = `${evaluator.templateId}:${version}`;
    let found = versions.get(key);
    if (!found) {
      found = prisma.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId: evaluator.templateId, version } } });
      found.catch(() => versions.delete(key));
      if (versions.size > 5_000) versions.clear();
      versions.set(key, found);
    }
    return found;
  }

  async function write(ctx: RunContext, columns: RunColumns): Promise<ProcessStatus> {
    const { workspaceId, spanId, evaluatorId } = ctx.payload;
    try {
      await prisma.run.create({
        data: {
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
          attempts: ctx.attempt,
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
        },
      });
      return "recorded";
    } catch (error) {
      if (isUniqueViolation(error)) return "already-recorded";
      throw error;
    }
  }

  function skipped(ctx: RunContext, reason: string): Promise<ProcessStatus> {
    return write({ ...ctx, skipReason: reason }, {
      outcome: "skipped", stdout: "", stderr: "", errorType: null, errorMessage: null, errorTraceback: null, durationMs: 0, scores: [],
    });
  }

  async function run(ctx: RunContext, evaluator: Evaluator & { template: { latestVersion: number } }, isLastAttempt: boolean): Promise<ProcessStatus> {
    const { workspaceId, spanId } = ctx.payload;
    const span = await prisma.span.findFirst({ where: { id: spanId, workspaceId } });
    if (!span) return "span-gone";
    const version = await versionOf(evaluator);
    const params = resolveParams(specsOf(version), objectOf(evaluator.params));
    const prepared = await deps.preparer.prepare(workspaceId, version);
    const document = spanToDocument(span, await deps.spans.traceSpans(workspaceId, span.traceId));
    const full = { ...ctx, templateVersionId: version.id, params, libraryVersions: prepared.libraryVersions, startedAt: new Date() };
    const [result] = await deps.execution().execute(prepared.key, [{ workspaceId, document: document as Record<string, unknown>, params, dependencies: [] }]);
    if (result!.outcome === "sandbox_error" && !isLastAttempt) throw new SandboxFaultError(result!.error?.message ?? "unknown");
    const columns = runColumns(result!);
    if (USER_FAULTS.includes(columns.outcome)) {
      logger.info({ ...ctx.payload, outcome: columns.outcome, errorType: columns.errorType }, "evaluator failed on a span (recorded, not retried)");
    }
    return write(full, columns);
  }

  /**
   * Processes one evaluation job. @returns what it did.
   * @throws SandboxFaultError (retried) before the last attempt; database errors (retried).
   */
  return async function processEvaluation(payload: EvaluationPayload, job: JobAttempts): Promise<ProcessStatus> {
    const { workspaceId, spanId, evaluatorId } = payload;
    const done = await prisma.run.findUnique({ where: { spanId_evaluatorId: { spanId, evaluatorId } }, select: { id: true } });
    if (done) return "already-recorded";
    const evaluator = await prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId }, include: { template: { select: { latestVersion: true } } } });
    if (!evaluator) return "evaluator-gone";
    const attempt = job.attemptsMade + 1;
    const ctx: RunContext = { payload, attempt, startedAt: new Date(), templateVersionId: null, params: {}, libraryVersions: {} };
    if (evaluator.archivedAt) return skipped(ctx, "the evaluator was archived after the span was matched");
    if (!evaluator.enabled) return skipped(ctx, "the evaluator was disabled after the span was matched");
    return run(ctx, evaluator, attempt >= (job.opts.attempts ?? 1));
  };
}

/** The evaluation processor. */
export type RunProcessor = ReturnType<typeof createRunProcessor>;
