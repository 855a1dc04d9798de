import { z } from "zod";
import { nameSchema } from "../../lib/text-rules.js";
import { typeError } from "../../lib/validation.js";
import { GATE_SPANS } from "../../lib/closed-lists.js";

/** Most dependencies of one evaluator. */
export const MAX_DEPENDENCIES = 20;

/** A gate of a dependency input: the dependency's score that must pass, and the NUMERIC threshold. */
export const gateInputSchema = z.object({
  score: nameSchema(100).describe("The dependency's score name, e.g. is_json."),
  at: z.number({ error: typeError("a number") }).finite("must be a finite number").nullable().optional().describe("The threshold of a NUMERIC score (default 0.5)."),
  spans: z
    .enum(GATE_SPANS, { error: `must be one of ${GATE_SPANS.join(", ")}` })
    .nullable()
    .optional()
    .describe("A trace or session evaluator's gate only, and required there: which spans of the group must pass, any (at least one where the dependency ran) or all (every one where it ran)."),
});

/** One dependency of an evaluator input: another evaluator of the workspace (its name or id), optionally a gate. */
export const dependencyInputSchema = z.object({
  evaluator: z.string({ error: typeError("an evaluator name or id") }).trim().min(1, "must not be empty").describe("Its name, or its id (global or UUID)."),
  gate: gateInputSchema.nullable().optional().describe("Run only when a score of it passes; else the run is recorded as skipped."),
});

/** The dependencies of an evaluator input (replace the saved list). */
export const dependenciesInputSchema = z
  .array(dependencyInputSchema, { error: "must be a list of {evaluator, gate?}" })
  .max(MAX_DEPENDENCIES, `must have at most ${MAX_DEPENDENCIES} dependencies`);

/** A dependency as given. */
export type DependencyInput = z.infer<typeof dependencyInputSchema>;
