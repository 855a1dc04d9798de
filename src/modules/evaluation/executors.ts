import { runLimits, type ExecuteItem, type Executor, type ItemResult } from "../../execution/index.js";
import type { EvaluatorKind } from "../../lib/closed-lists.js";
import type { RunPreparer } from "./prepare.js";
import type { EvaluationSubject } from "./subject.js";

/**
 * The executor seam: how an evaluator kind turns documents into results. The core
 * (evaluate-batch.ts) picks the executor of the subject's kind and never knows how it works. Today
 * one kind runs here, `code` (the sandbox); `external` evaluators have no executor, their scores
 * are posted (dependencies' submitScores) and written through the same writer. A new kind (an LLM
 * judge) is one more implementation of {@link EvaluatorExecutor} and one more entry in
 * {@link Executors}.
 */

/** What an executor gives back for one batch: a result per item, in order, and what it ran with. */
export interface ExecutedBatch {
  /** One result per document, in the order given (outcome from the closed list `RUN_OUTCOMES`). */
  results: ItemResult[];
  /** Shared-library versions the batch ran with: name → version (recorded on every run). */
  libraryVersions: Record<string, number>;
  /** When the items were handed over (after any preparation): the runs' `startedAt`. */
  startedAt: Date;
}

/** Runs one evaluator over the documents of a batch. */
export interface EvaluatorExecutor {
  /**
   * @param subject - the evaluator as the batch runs it (code, settings, limits, trust domain).
   * @param items - the documents, each with the dependency names `ctx.score` may read (null: a draft, any).
   * @param onStart - awaited once preparation succeeded, just before the items are handed over.
   * @returns a result per item, in order; a fault of the executor itself is a result with outcome
   *   `sandbox_error`, never a thrown error, unless nothing could start (then it throws).
   */
  execute(subject: EvaluationSubject, items: readonly { document: Record<string, unknown>; dependencies: string[] | null }[], onStart?: () => Promise<unknown>): Promise<ExecutedBatch>;
}

/** The executor of each evaluator kind that the service runs itself (a kind absent here is not run: its scores are posted). */
export type Executors = Partial<Record<EvaluatorKind, EvaluatorExecutor>>;

/**
 * The sandbox executor (kind `code`): prepares the execution key (source, shared libraries at their
 * pins, isolation mode, the evaluator's limits over its template's) and runs every item of the
 * batch in ONE call to the warm runners of that key (or a fork per item for `strict`).
 */
export function createSandboxExecutor(deps: { execution: () => Executor; preparer: Pick<RunPreparer, "prepare"> }): EvaluatorExecutor {
  return {
    async execute(subject, items, onStart) {
      const mode = subject.isolation === "strict" ? "strict" : "warm";
      const { key, libraryVersions } = await deps.preparer.prepare(subject.workspaceId, subject.version, subject.imports, mode, runLimits(subject.limits.own, subject.limits.template));
      const batch: ExecuteItem[] = items.map((item) => ({ workspaceId: subject.workspaceId, document: item.document, params: subject.params, dependencies: item.dependencies }));
      await onStart?.();
      const startedAt = new Date();
      const results = await deps.execution().execute({ ...key, trustDomain: subject.trustDomain }, batch);
      return { results, libraryVersions, startedAt };
    },
  };
}
