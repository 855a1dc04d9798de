import { z } from "zod";
import { LIMIT_SPECS, LimitError, resolveLimits, RUNNER_CPU_HEADROOM_MS, type Limits } from "./limits.js";

/**
 * The limits an evaluator (or its template) may ask for itself: CPU time, wall time and memory of
 * one item, each within the min and ceiling of {@link LIMIT_SPECS} — above the executor's defaults
 * too (an evaluator that needs 30 s of CPU may have it), never above a ceiling. The other limits
 * (output, /tmp, files) stay the operator's.
 */
export const EVALUATOR_LIMIT_NAMES = ["cpuTimeMs", "wallTimeMs", "memoryBytes"] as const;

/** What an evaluator asks for: any of {@link EVALUATOR_LIMIT_NAMES} (absent: the default). */
export type EvaluatorLimits = Partial<Pick<Limits, (typeof EVALUATOR_LIMIT_NAMES)[number]>>;

const MiB = 1024 * 1024;
const unitOf = (name: (typeof EVALUATOR_LIMIT_NAMES)[number], value: number) => (name === "memoryBytes" ? `${value} bytes (${Math.round(value / MiB)} MiB)` : `${value} ms`);

/** One limit: a whole number in [min, ceiling] of its spec, the error naming both. */
const limitField = (name: (typeof EVALUATOR_LIMIT_NAMES)[number]) => {
  const spec = LIMIT_SPECS[name];
  return z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(spec.min, `must be at least ${unitOf(name, spec.min)}`)
    .max(spec.ceiling, `must be at most ${unitOf(name, spec.ceiling)} (the sandbox's ceiling)`);
};

/**
 * The `limits` of an evaluator or template: `{cpuTimeMs?, wallTimeMs?, memoryBytes?}`, each within
 * its min and ceiling (src/execution/limits.ts); any other key is refused by name.
 */
export const evaluatorLimitsSchema = z
  .strictObject(
    {
      cpuTimeMs: limitField("cpuTimeMs").describe(`CPU time of one item (ms): ${LIMIT_SPECS.cpuTimeMs.min} to ${LIMIT_SPECS.cpuTimeMs.ceiling}, default ${LIMIT_SPECS.cpuTimeMs.default}.`).optional(),
      wallTimeMs: limitField("wallTimeMs").describe(`Wall-clock time of one item (ms): ${LIMIT_SPECS.wallTimeMs.min} to ${LIMIT_SPECS.wallTimeMs.ceiling}, default ${LIMIT_SPECS.wallTimeMs.default}.`).optional(),
      memoryBytes: limitField("memoryBytes")
        .describe(`Address space of the runner (bytes): ${LIMIT_SPECS.memoryBytes.min / MiB} to ${LIMIT_SPECS.memoryBytes.ceiling / MiB} MiB, default ${LIMIT_SPECS.memoryBytes.default / MiB} MiB.`)
        .optional(),
    },
    { error: "must be an object {cpuTimeMs?, wallTimeMs?, memoryBytes?}" },
  );

/** The given keys of a stored `limits` JSON value (anything else, or a wrong type, is ignored: saves validate). */
export function evaluatorLimitsOf(value: unknown): EvaluatorLimits {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const out: EvaluatorLimits = {};
  for (const name of EVALUATOR_LIMIT_NAMES) {
    const v = (value as Record<string, unknown>)[name];
    if (typeof v === "number" && Number.isInteger(v)) out[name] = v;
  }
  return out;
}

/** What a run asks for: the evaluator's own limits, else its template's, key by key. */
export function runLimits(evaluator: unknown, template: unknown): EvaluatorLimits {
  return { ...evaluatorLimitsOf(template), ...evaluatorLimitsOf(evaluator) };
}

/**
 * The limits of a runner for an evaluator that asks for `asked`: `base` (the executor's) with the
 * asked CPU, wall time and memory, and `runnerCpuTimeMs` raised when it would not cover the
 * item's CPU budget plus {@link RUNNER_CPU_HEADROOM_MS}.
 * @throws LimitError naming the limit when an asked value is outside its min and ceiling.
 */
export function withEvaluatorLimits(base: Readonly<Limits>, asked: EvaluatorLimits): Readonly<Limits> {
  const merged: Partial<Limits> = { ...base, ...asked };
  for (const name of EVALUATOR_LIMIT_NAMES) {
    const v = merged[name]!;
    if (v > LIMIT_SPECS[name].ceiling || v < LIMIT_SPECS[name].min) throw new LimitError(name, `limit ${name}: ${v} is outside ${LIMIT_SPECS[name].min}..${LIMIT_SPECS[name].ceiling}`);
  }
  merged.runnerCpuTimeMs = Math.min(LIMIT_SPECS.runnerCpuTimeMs.ceiling, Math.max(base.runnerCpuTimeMs, merged.cpuTimeMs! + RUNNER_CPU_HEADROOM_MS));
  return resolveLimits(merged);
}
