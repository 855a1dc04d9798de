import { encodeGlobalID } from "@pothos/plugin-relay";
import { builder } from "../../graphql/builder.js";
import { EvaluatorKindEnum } from "../../graphql/enums.js";
import type { EvaluatorKind } from "../../lib/closed-lists.js";
import type { DependencyWait, WaitedDependency } from "./service.js";

/** One dependency a dependent waits for, as read back. */
const WaitedDependencyRef = builder.objectRef<WaitedDependency>("WaitedDependency").implement({
  fields: (t) => ({
    evaluatorId: t.id({ description: "The dependency's global id.", resolve: (w) => encodeGlobalID("Evaluator", w.evaluatorId) }),
    name: t.exposeString("name"),
    kind: t.field({ type: EvaluatorKindEnum, description: "external (waits for posted scores) or code (still queued).", resolve: (w) => w.kind as EvaluatorKind }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", description: "When this wait's safety net expires." }),
  }),
});

/** A dependent waiting on a span (spans/waiting.ts). */
export const DependencyWaitRef = builder.objectRef<DependencyWait>("DependencyWait").implement({
  description: "An evaluator queued on a span that waits for its dependencies: for what, since when, and when the safety net lets it run with what there is.",
  fields: (t) => ({
    evaluatorId: t.id({ description: "The waiting evaluator's global id.", resolve: (w) => encodeGlobalID("Evaluator", w.evaluatorId) }),
    evaluatorName: t.exposeString("evaluatorName"),
    waitingFor: t.field({ type: [WaitedDependencyRef], resolve: (w) => w.waitingFor }),
    since: t.expose("since", { type: "DateTime", description: "When its evaluation on the span was queued." }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", description: "When it runs at the latest without the missing scores." }),
  }),
});
