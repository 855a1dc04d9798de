/**
 * Evaluator dependencies within an experiment item (issue 8 adds them to evaluators; until then
 * every evaluator is independent). An evaluator runs on an item after every evaluator it depends
 * on has run on that item; a batch runs its evaluators in this order, one after the other, and
 * passes each one the scores of its dependencies.
 */

/** Evaluator id → ids of the evaluators it depends on (only those of the experiment count). */
export type DependencyMap = ReadonlyMap<string, readonly string[]>;

/**
 * The order to run evaluators in: dependencies first (Kahn's algorithm), ties kept in the given
 * order. Dependencies outside `ids` are ignored. Pure.
 * @throws Error naming the evaluators of a cycle (saving an evaluator refuses cycles, so this is a guard).
 */
export function orderEvaluators(ids: readonly string[], dependsOn: DependencyMap): string[] {
  const inSet = new Set(ids);
  const pending = new Map(ids.map((id) => [id, (dependsOn.get(id) ?? []).filter((d) => inSet.has(d) && d !== id)]));
  const order: string[] = [];
  while (pending.size > 0) {
    const ready = ids.filter((id) => pending.has(id) && pending.get(id)!.every((d) => !pending.has(d)));
    if (ready.length === 0) throw new Error(`evaluator dependencies form a cycle among: ${[...pending.keys()].join(", ")}`);
    for (const id of ready) {
      order.push(id);
      pending.delete(id);
    }
  }
  return order;
}
