import type { ItemResult } from "../../execution/index.js";
import type { Logger } from "../../lib/logger.js";
import { documentScores, failedGate, inputRunIds } from "../dependencies/input-runs.js";
import { kindTraits } from "../evaluators/kinds.js";
import type { Executors, RunUsage } from "./executors.js";
import type { TargetInputs } from "./inputs.js";
import { USER_FAULTS } from "./record.js";
import type { EvaluationSubject } from "./subject.js";

/**
 * The evaluation core: "evaluate a batch" written once. Live spans (runs/processor.ts),
 * experiments (experiments/batch-processor.ts), backfills (backfills/batch.ts) and tryCode
 * (try-code/service.ts) are drivers: each loads its targets and their dependencies' runs, decides
 * what is already done or not to run (its own rules: locks, caps, waits, cancellation), calls
 * {@link EvaluationCore.evaluateBatch} once per evaluator and batch, then writes what it returns
 * through evaluation/write.ts. Only the core reaches an executor (the import lint's
 * `sandbox-only-through-the-core` rule), so every path gates, runs and classifies alike.
 */

/** One target of a batch for one evaluator. `T` is the driver's target (a span id, an item id). */
export interface TargetEvaluation<T> {
  target: T;
  /** The dependencies' current runs on the target (see inputs.ts). */
  inputs: TargetInputs;
  /**
   * The target's document (a span's or a dataset item's), given `document.scores` when the
   * evaluator has dependencies (dependency name → score name → value), else undefined.
   */
  document(scores: Record<string, Record<string, unknown>> | undefined): Record<string, unknown>;
  /** No retry follows (the job's last attempt): a sandbox fault is then recorded instead of handed back. */
  lastAttempt: boolean;
  /**
   * The driver can still wait for the provider (a judge's 429): the run is then deferred without
   * spending an attempt. False or absent: a 429 is a fault like any other (retried, recorded last).
   */
  deferrable?: boolean;
}

/** What a finished evaluation records, apart from what the driver knows (its target, attempts, backfill). */
export interface EvaluatedRun {
  /** The template version run. */
  templateVersionId: string;
  params: Record<string, unknown>;
  libraryVersions: Record<string, number>;
  /** The executor's result; null when a gate skipped the run (`skipReason` says why). */
  result: ItemResult | null;
  skipReason?: string;
  /** Dependency evaluator id → the run id read (absent without dependencies). */
  inputRunIds?: Record<string, string>;
  /** Dependencies that had no scores on the target (ctx.score fell back to its default; absent without dependencies). */
  missingDependencies?: string[];
  /** A judge's model call (Run.usage); absent for code. */
  usage?: RunUsage | null;
  startedAt: Date;
  finishedAt: Date;
}

/**
 * The core's answer for one target: a run to record; a sandbox fault to retry (never the user's
 * fault: those are recorded on the first attempt); or a run deferred until the provider takes
 * calls again (`untilMs`, ms since the epoch), which must not spend an attempt.
 */
export type Evaluated<T> =
  | { target: T; status: "done"; run: EvaluatedRun }
  | { target: T; status: "retry"; message: string }
  | { target: T; status: "defer"; untilMs: number; message: string };

/** Hooks a driver may give to one call. */
export interface BatchHooks<T> {
  /** Called with the targets about to be handed to the executor, once it prepared them (the live path counts sandbox entries for poison pills). */
  beforeExecute?(targets: readonly T[]): Promise<unknown>;
}

/** Thrown for an evaluator whose kind the service does not run (its scores are posted). */
export class NotRunnableError extends Error {
  constructor(kind: string) {
    super(`evaluators of kind "${kind}" are not run by the service: their scores are posted`);
    this.name = "NotRunnableError";
  }
}

/**
 * Builds the core over the executors of each kind.
 * @param deps.executors - the executor of each kind the service runs (`code`: the sandbox).
 * @param deps.logger - user faults are logged at info (recorded, not retried).
 */
export function createEvaluationCore(deps: { executors: Executors; logger: Logger }) {
  return {
    /**
     * Evaluates one evaluator over a batch of targets, in steps that are the same on every path:
     * 1. gates: a target whose dependency gate does not pass is recorded as skipped with the reason
     *    (every target, while the evaluator is blocked: `subject.blockedReason`);
     * 2. execute: every other target's document (with `document.scores` from its inputs) in ONE call
     *    to the executor of the subject's kind;
     * 3. classify: a run the provider asked to delay is deferred when the target is `deferrable`; a
     *    `sandbox_error` before the last attempt is handed back to retry (unless the executor says
     *    it is `final`); anything else (ok, or a fault of the user's code) is a run to record.
     * Every run carries what it read (`inputRunIds`, `missingDependencies`) when the evaluator has
     * dependencies.
     * @returns one answer per target, in input order.
     * @throws NotRunnableError for a kind with no executor; whatever the executor throws when
     *   nothing could start (a preparation error: the driver's job fails and is retried).
     */
    async evaluateBatch<T>(subject: EvaluationSubject, targets: readonly TargetEvaluation<T>[], hooks: BatchHooks<T> = {}): Promise<Evaluated<T>[]> {
      const executor = kindTraits(subject.kind).computed ? deps.executors[subject.kind as keyof Executors] : undefined;
      if (!executor) throw new NotRunnableError(subject.kind);
      const declared = subject.dependencies;
      const read = (t: TargetEvaluation<T>): Pick<EvaluatedRun, "inputRunIds" | "missingDependencies"> =>
        declared?.length ? { inputRunIds: inputRunIds(t.inputs), missingDependencies: declared.filter((d) => !t.inputs.get(d.dependsOnId)?.scores.length).map((d) => d.name) } : {};
      const base = { templateVersionId: subject.version.id, params: subject.params };

      const answers: Evaluated<T>[] = new Array(targets.length);
      const toRun: number[] = [];
      targets.forEach((t, i) => {
        // A blocked evaluator runs nowhere until it is unblocked (its provider refused for good).
        const gate = subject.blockedReason ? subject.blockedReason : declared?.length ? failedGate(declared, t.inputs) : null;
        if (gate === null) return void toRun.push(i);
        const now = new Date();
        answers[i] = { target: t.target, status: "done", run: { ...base, libraryVersions: {}, result: null, skipReason: gate, ...read(t), startedAt: now, finishedAt: now } };
      });
      if (toRun.length === 0) return answers;

      const names = declared ? declared.map((d) => d.name) : null;
      const items = toRun.map((i) => {
        const t = targets[i]!;
        return { document: t.document(declared?.length ? documentScores(declared, t.inputs) : undefined), dependencies: names };
      });
      const executed = await executor.execute(subject, items, () => hooks.beforeExecute?.(toRun.map((i) => targets[i]!.target)) ?? Promise.resolve());
      const { results, libraryVersions, startedAt } = executed;
      const finishedAt = new Date();
      const faults = new Map<string, number>();
      toRun.forEach((i, n) => {
        const t = targets[i]!;
        const result = results[n]!;
        const deferUntil = executed.deferUntil?.[n] ?? null;
        if (deferUntil !== null && t.deferrable) {
          answers[i] = { target: t.target, status: "defer", untilMs: deferUntil, message: result.error?.message ?? "the provider asked to wait" };
          return;
        }
        if (result.outcome === "sandbox_error" && !t.lastAttempt && !executed.final) {
          answers[i] = { target: t.target, status: "retry", message: result.error?.message ?? "unknown" };
          return;
        }
        if ((USER_FAULTS as readonly string[]).includes(result.outcome)) faults.set(result.outcome, (faults.get(result.outcome) ?? 0) + 1);
        const usage = executed.usage ? { usage: executed.usage[n] ?? null } : {};
        answers[i] = { target: t.target, status: "done", run: { ...base, libraryVersions, result, ...read(t), ...usage, startedAt, finishedAt } };
      });
      // One line per batch (an experiment of 10,000 failing items would otherwise log 10,000).
      if (faults.size) deps.logger.info({ workspaceId: subject.workspaceId, evaluatorId: subject.evaluatorId, trustDomain: subject.trustDomain, faults: Object.fromEntries(faults) }, "evaluator failed on targets (recorded, not retried)");
      return answers;
    },
  };
}

/** The evaluation core. */
export type EvaluationCore = ReturnType<typeof createEvaluationCore>;

/**
 * Thrown for a job whose run the provider asked to delay (a judge's 429 with Retry-After): the
 * worker moves the job back to the delayed set until `untilMs` without spending an attempt
 * (worker.ts), up to {@link MAX_DEFER_AGE_MS} after the job was queued.
 */
export class ProviderDelayError extends Error {
  constructor(
    /** When to try again, ms since the epoch. */
    readonly untilMs: number,
    message: string,
  ) {
    super(`the provider asked to wait; delayed until ${new Date(untilMs).toISOString()}: ${message}`);
    this.name = "ProviderDelayError";
  }
}

/** How long after it was queued a job may still be delayed for a provider (1 hour): past it, a 429 is a fault that spends attempts. */
export const MAX_DEFER_AGE_MS = 3_600_000;

/** Whether a job queued at `queuedAt` (ms) may still be delayed for a provider at `now`. */
export function deferrableAt(queuedAt: number | undefined, now: number): boolean {
  return queuedAt !== undefined && now - queuedAt < MAX_DEFER_AGE_MS;
}
