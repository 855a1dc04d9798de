import { ConflictError } from "../../lib/errors.js";
import type { ParamSpec } from "./settings.js";
import { typeMismatch } from "./settings.js";
import { valueProblems } from "./values.js";

/** An evaluator whose values the new settings of its template would not accept. */
export interface EvaluatorConflict {
  /** The evaluator's name. */
  evaluator: string;
  /** The evaluator's database id. */
  evaluatorId: string;
  /** One sentence per refused value, each naming the setting. */
  reasons: string[];
  /** The reasons joined with "; ". */
  reason: string;
}

/** What the 409 rule needs of an evaluator that follows the template's latest version. */
export interface FollowingEvaluator {
  id: string;
  name: string;
  params: Record<string, unknown>;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The 409 rule (docs/settings.md § Changing the settings of a template): every
 * evaluator that holds a value the new settings would not accept — a value for a removed
 * setting, a value of a changed type or not among the new enum options — or no value for a
 * setting made required with no default. A change of default alone never conflicts.
 */
export function settingsConflicts(newSpecs: readonly ParamSpec[], evaluators: readonly FollowingEvaluator[]): EvaluatorConflict[] {
  const byName = new Map(newSpecs.map((s) => [s.name, s]));
  const conflicts: EvaluatorConflict[] = [];
  for (const evaluator of evaluators) {
    const reasons = valueProblems(newSpecs, evaluator.params).map((problem) => {
      const value = evaluator.params[problem.name];
      if (problem.kind === "undeclared") return `holds a value for "${problem.name}", a setting that the new settings remove`;
      if (problem.kind === "missing") return `sets no value for "${problem.name}", which the new settings make required with no default`;
      const spec = byName.get(problem.name)!;
      return `holds ${shown(value)} for "${problem.name}", which the new settings do not accept: it ${typeMismatch(spec, value)} (type ${spec.type})`;
    });
    if (reasons.length) conflicts.push({ evaluator: evaluator.name, evaluatorId: evaluator.id, reasons, reason: reasons.join("; ") });
  }
  return conflicts;
}

/**
 * The CONFLICT (HTTP 409) error for a refused settings change, naming every evaluator and its
 * reason; `details.details` holds `{evaluator, id, reason, reasons}` per evaluator (GraphQL: a global id).
 */
export function settingsConflictError(template: string, conflicts: readonly EvaluatorConflict[]): ConflictError {
  const list = conflicts.map((c) => `"${c.evaluator}" (${c.reason})`).join("; ");
  return new ConflictError(
    `the new settings of template "${template}" would not accept the values of ${conflicts.length} evaluator(s): ${list}. ` +
      "Change their values first, then change the template.",
    conflicts.map((c) => ({ recordType: "Evaluator" as const, evaluator: c.evaluator, id: c.evaluatorId, reason: c.reason, reasons: c.reasons })),
  );
}
