import { decodeGlobalID } from "@pothos/plugin-relay";
import { builder } from "../../graphql/builder.js";
import { GateSpansEnum } from "../../graphql/enums.js";
import type { GateSpans } from "../../lib/closed-lists.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { isUuid } from "../../lib/uuid.js";
import { dependencyInputSchema, gateInputSchema } from "./schemas.js";

const gate = describedBy(gateInputSchema);
const dependency = describedBy(dependencyInputSchema);

/** A gate of a dependency: the dependency's score that must pass. */
export const GateInput = builder.inputType("DependencyGateInput", {
  description: "Run only when this score of the dependency passes (combine.passed): a BOOLEAN when True (False when lower is better), a NUMERIC at >= `at`; a missing score fails. A trace or session evaluator's gate also says which spans of the group must pass (`spans`: any or all).",
  fields: (t) => ({
    score: t.string({ required: true, ...gate("score") }),
    at: t.float(gate("at")),
    spans: t.field({ type: GateSpansEnum, ...gate("spans") }),
  }),
});

/** One dependency of an evaluator input. */
export const DependencyInput = builder.inputType("EvaluatorDependencyInput", {
  description: "Another evaluator of the workspace that this one runs after (and whose scores ctx.score reads).",
  fields: (t) => ({
    evaluator: t.string({ required: true, ...dependency("evaluator") }),
    gate: t.field({ type: GateInput, ...dependency("gate") }),
  }),
});

/** A reference to an evaluator given as a name, a UUID or a global id → a name or a UUID. */
export function evaluatorRefOf(value: string): string {
  if (isUuid(value)) return value;
  try {
    const decoded = decodeGlobalID(value);
    if (decoded.typename === "Evaluator" && isUuid(decoded.id)) return decoded.id;
  } catch {
    // not a global id: a name
  }
  return value;
}

/** Dependencies from GraphQL input to the service's input (global ids decoded; null gates dropped). */
export function dependenciesOf(list: readonly { evaluator: string; gate?: { score: string; at?: number | null; spans?: GateSpans | null } | null }[] | null | undefined) {
  if (list === undefined) return undefined;
  return (list ?? []).map((d) => ({ evaluator: evaluatorRefOf(d.evaluator), ...(d.gate ? { gate: { score: d.gate.score, at: d.gate.at ?? null, spans: d.gate.spans ?? null } } : {}) }));
}
