import type { InputIssue } from "../../lib/errors.js";
import { typeMismatch, type ParamSpec } from "./settings.js";
import { isPlainObject } from "../../lib/json-column.js";

/** Why one evaluator value (or its absence) is not accepted by a template's settings. */
export interface ValueProblem {
  /** The setting's name (or the undeclared name). */
  name: string;
  /** undeclared: the template declares no such setting; type: wrong type or not an option; missing: required with no default. */
  kind: "undeclared" | "type" | "missing";
  /** What is wrong, naming the setting. */
  message: string;
}

/** True when the value counts as set: null and undefined mean "not set" (ctx.params falls back). */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * Checks an evaluator's values against the settings it runs with: a name the template does not
 * declare, a value of the wrong type, and a required setting with no value and no default are
 * each reported with the setting's name. Pure; the order follows the values, then the specs.
 */
export function valueProblems(specs: readonly ParamSpec[], values: Readonly<Record<string, unknown>>): ValueProblem[] {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const problems: ValueProblem[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (!isSet(value)) continue;
    const spec = byName.get(name);
    if (!spec) {
      problems.push({ name, kind: "undeclared", message: `the template declares no setting "${name}"` });
      continue;
    }
    const mismatch = typeMismatch(spec, value);
    if (mismatch) problems.push({ name, kind: "type", message: `setting "${name}" (${spec.type}): the value ${mismatch}` });
  }
  for (const spec of specs) {
    if (spec.required && !isSet(values[spec.name]) && !isSet(spec.default)) {
      problems.push({ name: spec.name, kind: "missing", message: `setting "${spec.name}" is required and has no default: set a value` });
    }
  }
  return problems;
}

/**
 * Validates an evaluator's `params` input and drops unset (null) entries.
 * @returns the values to store, or the issues with paths like `params.mode`.
 */
export function validateValues(specs: readonly ParamSpec[], raw: unknown, field = "params"): { values: Record<string, unknown>; issues: InputIssue[] } {
  if (raw === undefined || raw === null) raw = {};
  if (!isPlainObject(raw)) return { values: {}, issues: [{ path: field, message: "must be an object of setting name to value" }] };
  const values = Object.fromEntries(Object.entries(raw).filter(([, v]) => isSet(v)));
  const issues = valueProblems(specs, values).map((p) => ({ path: `${field}.${p.name}`, message: p.message }));
  return { values, issues };
}

/**
 * ctx.params for a run (docs/settings.md § What the code gets): for every declared
 * setting, the evaluator's value if it sets one, else the setting's default, else null (None in
 * Python). Names the template does not declare are left out. Pure: the result shares nothing
 * with its inputs.
 */
export function resolveParams(specs: readonly ParamSpec[], values: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const spec of specs) {
    const own = Object.hasOwn(values, spec.name) ? values[spec.name] : undefined;
    const value = isSet(own) ? own : isSet(spec.default) ? spec.default : null;
    resolved[spec.name] = structuredClone(value);
  }
  return resolved;
}
