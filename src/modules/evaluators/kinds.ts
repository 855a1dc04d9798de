import { z } from "zod";
import { EVALUATOR_KINDS, type EvaluatorKind, type TemplateKind } from "../../lib/closed-lists.js";

/**
 * The one place that knows what an evaluator kind implies. Every other file asks a trait of
 * {@link kindTraits} instead of comparing a kind with a literal (test/foundation/kind-traits.test.ts
 * fails if such a comparison comes back), so that a new kind is one more row here.
 */
export interface KindTraits {
  /** Whether the evaluator is created from a template (its code, settings and version pin). */
  readonly needsTemplate: boolean;
  /** The kind of template it runs (TEMPLATE_KINDS), when it needs one. */
  readonly templateKind: TemplateKind | null;
  /** Whether a worker computes its runs (queued as jobs, owed by matched spans, run by an executor of evaluation/executors.ts). */
  readonly computed: boolean;
  /** Whether its runs execute in the Python sandbox (isolation and sandbox limits apply). */
  readonly sandboxed: boolean;
  /** Whether it calls a model through a workspace connection (connectionId, spend cap, blocking on terminal provider errors). */
  readonly usesConnection: boolean;
  /** Whether its scores are posted from outside (submitScores): dependants wait for them with the longer barrier delay. */
  readonly canBePosted: boolean;
  /**
   * Whether it may have a trace or session target (Evaluator.target): its code runs on the whole
   * group. Posted scores land on spans, so a kind whose scores are posted runs on spans only.
   */
  readonly canTargetGroups: boolean;
}

/** The traits of each evaluator kind. */
export const KIND_TRAITS: Readonly<Record<EvaluatorKind, KindTraits>> = {
  code: { needsTemplate: true, templateKind: "code", computed: true, sandboxed: true, usesConnection: false, canBePosted: false, canTargetGroups: true },
  external: { needsTemplate: false, templateKind: null, computed: false, sandboxed: false, usesConnection: false, canBePosted: true, canTargetGroups: false },
  judge: { needsTemplate: true, templateKind: "llm", computed: true, sandboxed: false, usesConnection: true, canBePosted: false, canTargetGroups: true },
};

/** The traits of a kind no evaluator has (a value outside {@link EVALUATOR_KINDS}): none of them. */
const NO_TRAITS: KindTraits = { needsTemplate: false, templateKind: null, computed: false, sandboxed: false, usesConnection: false, canBePosted: false, canTargetGroups: false };

/**
 * The traits of an evaluator kind as stored (a string column checked by the database).
 *
 * @param kind - the evaluator's kind.
 * @returns its row of {@link KIND_TRAITS}; for an unknown value, every trait false.
 */
export function kindTraits(kind: string): KindTraits {
  return Object.hasOwn(KIND_TRAITS, kind) ? KIND_TRAITS[kind as EvaluatorKind] : NO_TRAITS;
}

/** The kind whose scores are posted (the kind chosen for a new evaluator with no template). */
export const POSTED_KIND: EvaluatorKind = "external";
/** The kind that runs llm templates (a draft judge in tryCode runs as one). */
export const JUDGE_KIND: EvaluatorKind = "judge";
/** The kind of a new evaluator when none is given. */
export const DEFAULT_KIND: EvaluatorKind = "code";
/** The kinds whose runs a worker computes (for database filters). */
export const COMPUTED_KINDS: readonly EvaluatorKind[] = EVALUATOR_KINDS.filter((k) => KIND_TRAITS[k].computed);

/** The evaluator kind that runs a template of this kind. */
export function kindOfTemplate(templateKind: string): EvaluatorKind {
  return EVALUATOR_KINDS.find((k) => KIND_TRAITS[k].templateKind === templateKind) ?? DEFAULT_KIND;
}

/** The kind of a new evaluator. */
export const evaluatorKindSchema = z.enum(EVALUATOR_KINDS, { error: `must be one of ${EVALUATOR_KINDS.join(", ")}` });
