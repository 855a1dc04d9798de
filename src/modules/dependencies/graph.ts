import type { GateSpans } from "../../lib/closed-lists.js";
import { scorePasses } from "./passed.js";

/**
 * Evaluator dependency graphs, pure: layers (what may run at once), cycle detection and gates.
 * Used by saving (cycles refused), live spans (ordering), experiments (per-item ordering) and
 * reading (runs in dependency order).
 */

/** Evaluator id → ids of the evaluators it depends on. */
export type DependencyMap = ReadonlyMap<string, readonly string[]>;

/** A gate: run only when the dependency's score `score` passes (combine.passed at `at`). */
export interface Gate {
  score: string;
  /** The threshold of a NUMERIC score; default 0.5. */
  at?: number | null;
  /** A trace or session evaluator's gate: which spans of the group must pass (`any`, `all`); null or absent on a span evaluator's. */
  spans?: GateSpans | null;
}

/**
 * The evaluators in layers: layer 0 depends on none of `ids`, layer n only on earlier layers.
 * Dependencies outside `ids` are ignored (they did not match, or are not part of the run).
 * Within a layer the given order is kept.
 * @throws Error naming a cycle (saving refuses cycles, so this is a guard).
 */
export function dependencyLayers(ids: readonly string[], dependsOn: DependencyMap): string[][] {
  const inSet = new Set(ids);
  const pending = new Map(ids.map((id) => [id, (dependsOn.get(id) ?? []).filter((d) => inSet.has(d) && d !== id)]));
  const layers: string[][] = [];
  while (pending.size > 0) {
    const ready = ids.filter((id) => pending.has(id) && pending.get(id)!.every((d) => !pending.has(d)));
    if (ready.length === 0) {
      const cycle = findCycle(pending) ?? [...pending.keys()];
      throw new Error(`evaluator dependencies form a cycle: ${cycle.join(" → ")}`);
    }
    for (const id of ready) pending.delete(id);
    layers.push(ready);
  }
  return layers;
}

/** The evaluators in one order that runs every dependency first (the layers, flattened). */
export function orderEvaluators(ids: readonly string[], dependsOn: DependencyMap): string[] {
  return dependencyLayers(ids, dependsOn).flat();
}

/** Evaluator id → its layer (see {@link dependencyLayers}). */
export function layerOf(ids: readonly string[], dependsOn: DependencyMap): Map<string, number> {
  const layers = dependencyLayers(ids, dependsOn);
  return new Map(layers.flatMap((layer, i) => layer.map((id) => [id, i] as const)));
}

/**
 * A cycle of the graph as a path that comes back to its start (`[A, B, A]`), or null when there
 * is none. Depth-first, deterministic for a given map order.
 */
export function findCycle(dependsOn: DependencyMap): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === "done") return null;
    if (state.get(id) === "open") return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, "open");
    stack.push(id);
    for (const next of dependsOn.get(id) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, "done");
    return null;
  };
  for (const id of dependsOn.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return null;
}

/** Every evaluator that `id` depends on, directly or not (not `id` itself). */
export function upstreamOf(id: string, dependsOn: DependencyMap): Set<string> {
  const seen = new Set<string>();
  const todo = [...(dependsOn.get(id) ?? [])];
  while (todo.length) {
    const next = todo.pop()!;
    if (next === id || seen.has(next)) continue;
    seen.add(next);
    todo.push(...(dependsOn.get(next) ?? []));
  }
  return seen;
}

/** Every evaluator that depends on `id`, directly or not (not `id` itself). */
export function downstreamOf(id: string, dependsOn: DependencyMap): Set<string> {
  const dependents = new Map<string, string[]>();
  for (const [from, tos] of dependsOn) for (const to of tos) dependents.set(to, [...(dependents.get(to) ?? []), from]);
  return upstreamOf(id, dependents);
}

/** The fields of a stored score that decide whether it passes. */
export interface GateScore {
  name: string;
  /** BOOLEAN, NUMERIC or CATEGORICAL. */
  dataType: string;
  /** The number, 0/1 for a boolean, null when there is no value. */
  numericValue: number | null;
  higherIsBetter: boolean;
}

/** Whether a gate lets the dependent run, and why not when it does not. */
export interface GateDecision {
  passed: boolean;
  /** Set when not passed: a sentence for the run's skip reason. */
  reason?: string;
}

/**
 * Applies a gate to the scores a dependency wrote on the span or item, with `combine.passed` of
 * oodle_eval.v1: a BOOLEAN passes when True (False when lower is better), a NUMERIC at
 * `value >= at` (`value < at` when lower is better), no value fails; a missing score or a
 * dependency with no run fails; a CATEGORICAL score cannot gate (fails, saying so). Pure.
 * @param scores - the dependency's scores on the span or item; null when it has no run there.
 * @param dependencyName - for the reason.
 */
export function gatePasses(scores: readonly GateScore[] | null, gate: Gate, dependencyName = "the dependency"): GateDecision {
  const where = `gate on "${dependencyName}" score "${gate.score}"`;
  if (scores === null) return { passed: false, reason: `${where}: "${dependencyName}" has no run here (did not match, or no scores posted)` };
  const failure = scoreFailure(scores, gate);
  return failure === null ? { passed: true } : { passed: false, reason: `${where}: ${failure}` };
}

/** Why the gate's score in `scores` does not pass (the missing score, no value, CATEGORICAL, the value), or null when it passes. */
function scoreFailure(scores: readonly GateScore[], gate: Gate): string | null {
  const at = gate.at ?? 0.5;
  const score = scores.find((s) => s.name === gate.score);
  if (!score) return "the score is missing";
  if (score.dataType === "CATEGORICAL") return "a CATEGORICAL score has no pass or fail";
  if (score.numericValue === null) return "the score has no value";
  if (scorePasses(score, at)) return null;
  const shown = score.dataType === "BOOLEAN" ? String(score.numericValue === 1) : String(score.numericValue);
  const rule = score.dataType === "BOOLEAN" ? "" : ` (passes at ${score.higherIsBetter ? ">=" : "<"} ${at})`;
  return `did not pass (value ${shown}${rule})`;
}

/** A dependency's run on one span of a trace or session, as a group gate reads it. */
export interface GroupGateRun {
  /** The span's name and id, for the reason. */
  spanName: string;
  spanId: string;
  scores: readonly GateScore[];
}

/**
 * Applies a trace or session evaluator's gate to its dependency's runs on the group's spans (the
 * spans the dependency did not match have no run and do not count). `spans: "all"` passes when
 * every run passes the score rule of {@link gatePasses}, `"any"` when at least one does; with no
 * run on any span it fails (as a span's gate fails without a run). Pure.
 * @param runs - the dependency's runs on the group's spans, in span order.
 * @param dependencyName - for the reason.
 * @returns the decision; its reason names the first span that failed (`all`) or how many ran (`any`).
 */
export function groupGatePasses(runs: readonly GroupGateRun[], gate: Gate & { spans: GateSpans }, dependencyName: string): GateDecision {
  const where = `gate on "${dependencyName}" score "${gate.score}" (${gate.spans === "any" ? "any span" : "all spans"})`;
  if (runs.length === 0) return { passed: false, reason: `${where}: "${dependencyName}" has no run on any span (did not match, or no scores posted)` };
  const failed = runs.flatMap((run) => {
    const failure = scoreFailure(run.scores, gate);
    return failure === null ? [] : [{ run, failure }];
  });
  if (gate.spans === "all" ? failed.length === 0 : failed.length < runs.length) return { passed: true };
  const first = failed[0]!;
  const span = `span "${first.run.spanName}" (${first.run.spanId})`;
  if (gate.spans === "all") return { passed: false, reason: `${where}: ${span} ${first.failure}` };
  return { passed: false, reason: `${where}: none of the ${runs.length} spans it ran on passed (first: ${span} ${first.failure})` };
}
