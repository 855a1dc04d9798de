import type { Score } from "../../execution/index.js";
import { gatePasses, type GateDecision, type GateScore } from "../dependencies/graph.js";
import { numericValueOf } from "../evaluation/record.js";
import type { ExperimentDependency } from "./dependencies.js";

/** A score as dependents read it: its value, and what decides whether it passes. */
export interface ItemScore extends GateScore {
  value: unknown;
}

/** A sandbox score as an {@link ItemScore}. */
export function itemScoreOf(score: Score): ItemScore {
  return { name: score.name, value: score.value, dataType: score.data_type, numericValue: numericValueOf(score.value), higherIsBetter: score.higher_is_better };
}

/**
 * The scores each evaluator wrote on each item of a batch (from earlier attempts and from this
 * one), for the evaluators that depend on them: `document.scores` (ctx.score) and gates.
 */
export class ItemScores {
  private readonly byRun = new Map<string, ItemScore[]>();

  /** Notes the scores of the run of `evaluatorId` on `itemId` (empty when it wrote none). */
  record(itemId: string, evaluatorId: string, scores: readonly ItemScore[]): void {
    this.byRun.set(`${itemId}/${evaluatorId}`, [...scores]);
  }

  /** The scores of that run; null when the evaluator has no run on the item. */
  of(itemId: string, evaluatorId: string): ItemScore[] | null {
    return this.byRun.get(`${itemId}/${evaluatorId}`) ?? null;
  }

  /** `document.scores` for a dependent: dependency name → score name → value (dependencies with a run). */
  documentScores(itemId: string, dependencies: readonly ExperimentDependency[]): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const d of dependencies) {
      const scores = this.of(itemId, d.dependsOnId);
      if (scores) out[d.name] = Object.fromEntries(scores.map((s) => [s.name, s.value]));
    }
    return out;
  }

  /** Whether every gate of the dependent passes on the item (the first failing one says why). */
  gates(itemId: string, dependencies: readonly ExperimentDependency[]): GateDecision {
    for (const d of dependencies) {
      if (!d.gate) continue;
      const decision = gatePasses(this.of(itemId, d.dependsOnId), d.gate, d.name);
      if (!decision.passed) return decision;
    }
    return { passed: true };
  }
}
