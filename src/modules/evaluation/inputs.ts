import type { InputRun } from "../dependencies/input-runs.js";
import type { InsertedRun } from "./write.js";

/**
 * The one representation of "a dependency's scores on a target", for every driver: dependency
 * evaluator id → its current run there (id, outcome, scores). A dependency with no run is absent.
 * Gates (`failedGate`), `document.scores` (`documentScores`), `inputRunIds` and
 * `missingDependencies` are all read from it (dependencies/input-runs.ts).
 */
export type TargetInputs = ReadonlyMap<string, InputRun>;

/**
 * The current runs of a batch, by target and evaluator, as a batch reads them and then adds the
 * runs it writes, so that evaluators later in dependency order read what earlier ones just scored
 * (experiments and backfills run a batch's evaluators one after another).
 */
export class InputsByTarget<R extends InputRun = InputRun> {
  private readonly byTarget = new Map<string, Map<string, R>>();

  /** Notes `run` as the current run of its evaluator on the target `targetKey` (replacing any). */
  set(targetKey: string, run: R): void {
    const inputs = this.byTarget.get(targetKey) ?? new Map<string, R>();
    inputs.set(run.evaluatorId, run);
    this.byTarget.set(targetKey, inputs);
  }

  /** The current run of `evaluatorId` on the target, if any. */
  run(targetKey: string, evaluatorId: string): R | undefined {
    return this.byTarget.get(targetKey)?.get(evaluatorId);
  }

  /** Every (target key, run) held. */
  *entries(): IterableIterator<[string, R]> {
    for (const [targetKey, runs] of this.byTarget) for (const run of runs.values()) yield [targetKey, run];
  }

  /** What a dependent reads on the target: its dependencies' current runs (only those asked for). */
  inputsOf(targetKey: string, dependsOnIds: readonly string[]): TargetInputs {
    const all = this.byTarget.get(targetKey);
    const out = new Map<string, InputRun>();
    for (const id of dependsOnIds) {
      const run = all?.get(id);
      if (run) out.set(id, run);
    }
    return out;
  }
}

/** A run just inserted, as dependents read it (its stored scores). */
export function inputRunOf(run: Pick<InsertedRun, "runId" | "columns"> & { evaluatorId: string }): InputRun {
  return { id: run.runId, evaluatorId: run.evaluatorId, outcome: run.columns.outcome, scores: run.columns.scores.map((s) => ({ ...s, value: s.value as never })) };
}
