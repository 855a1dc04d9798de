import { runLimits, type ExecuteItem, type Executor, type ItemResult } from "../../execution/index.js";
import type { EvaluatorKind } from "../../lib/closed-lists.js";
import type { RunPreparer } from "./prepare.js";
import type { EvaluationSubject } from "./subject.js";
import type { RunUsage } from "./record.js";

/**
 * The executor seam: how an evaluator kind turns documents into results. The core
 * (evaluate-batch.ts) picks the executor of the subject's kind and never knows how it works. Two
 * kinds run here: `code` (the sandbox, below) and `judge` (a model call: judges/executor.ts);
 * `external` evaluators have no executor, their scores are posted (dependencies' submitScores) and
 * written through the same writer.
 */

/** What an executor gives back for one batch: a result per item, in order, and what it ran with. */
export interface ExecutedBatch {
  /** One result per document, in the order given (outcome from the closed list `RUN_OUTCOMES`). */
  results: ItemResult[];
  /** Shared-library versions the batch ran with: name → version (recorded on every run). */
  libraryVersions: Record<string, number>;
  /** When the items were handed over (after any preparation): the runs' `startedAt`. */
  startedAt: Date;
  /** Per item, what its model call cost (a judge's; absent for the sandbox, null for an item that made none). */
  usage?: (RunUsage | null)[];
  /**
   * Per item, when the provider asked to be called again (ms since the epoch: its 429 and
   * Retry-After): the run is deferred, not recorded, when the driver can still wait (the core's
   * `deferrable`); null for an item not deferred.
   */
  deferUntil?: (number | null)[];
  /**
   * True when the batch's `sandbox_error`s will not heal by retrying (the provider refused the key,
   * the model or the quota, and the evaluator is now blocked): they are recorded at once.
   */
  final?: boolean;
}

export type { RunUsage } from "./record.js";

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
