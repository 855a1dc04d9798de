import { z } from "zod";
import { RUN_OUTCOMES } from "../../lib/closed-lists.js";
import { nameSchema } from "../../lib/text-rules.js";
import { typeError } from "../../lib/validation.js";

/**
 * Shared input schemas of the experiments feature (GraphQL, CLI and MCP use the same). A field's
 * `.describe()` text is its documentation everywhere: the GraphQL input field reads it
 * (src/graphql/input-descriptions.ts) and an MCP tool's JSON Schema carries it.
 */

/** Items per queued job by default: large enough for the warm runners, small enough to resume cheaply. */
export const DEFAULT_BATCH_SIZE = 200;
/** At most this many evaluators (and templates) in one experiment. */
export const MAX_EXPERIMENT_EVALUATORS = 20;

/** How long dependents wait for external scores by default: 7 days, as on live spans. */
export const DEFAULT_DEPENDENCY_WAIT_SECONDS = 7 * 24 * 3600;
/** The longest wait for external scores: 30 days. */
export const MAX_DEPENDENCY_WAIT_SECONDS = 30 * 24 * 3600;

/** The states of an experiment (declared in src/lib/closed-lists.ts). */
export { EXPERIMENT_STATUSES, type ExperimentStatus } from "../../lib/closed-lists.js";

const idList = (what: string) =>
  z
    .array(z.string({ error: typeError("an id") }), { error: typeError(`a list of ${what} ids`) })
    .max(MAX_EXPERIMENT_EVALUATORS, `must have at most ${MAX_EXPERIMENT_EVALUATORS} ${what}s`)
    .refine((ids) => new Set(ids).size === ids.length, `must not name a ${what} twice`);

/**
 * The input of createExperiment: a dataset and the evaluators to run, or templates to run with
 * their defaults (docs/settings.md § What the code gets) — at least one of the two.
 */
export const createExperimentInputSchema = z
  .object({
    datasetId: z.string({ error: typeError("a dataset id") }),
    name: nameSchema(200).optional().describe("Defaults to the dataset's name and the time."),
    evaluatorIds: idList("evaluator").optional().describe("Evaluators to run, with their own setting values."),
    templateIds: idList("template").optional().describe("Templates to run with their defaults (when no evaluator is given for them)."),
    batchSize: z
      .number({ error: typeError("a whole number") })
      .int("must be a whole number")
      .min(1, "must be 1 or more")
      .max(1000, "must be at most 1000")
      .optional()
      .describe("Items per queued job (default 200)."),
    dependencyWaitSeconds: z
      .number({ error: typeError("a whole number of seconds") })
      .int("must be a whole number of seconds")
      .min(0, "must be 0 or more")
      .max(MAX_DEPENDENCY_WAIT_SECONDS, `must be at most ${MAX_DEPENDENCY_WAIT_SECONDS} (30 days)`)
      .optional()
      .describe("How long dependents wait for external scores posted for the items (submitScores), from creation (default 7 days; 0: do not wait)."),
  })
  .refine((input) => (input.evaluatorIds?.length ?? 0) + (input.templateIds?.length ?? 0) > 0, {
    message: "give at least one evaluator (evaluatorIds) or template to run with its defaults (templateIds)",
    path: ["evaluatorIds"],
  })
  .refine((input) => (input.evaluatorIds?.length ?? 0) + (input.templateIds?.length ?? 0) <= MAX_EXPERIMENT_EVALUATORS, {
    message: `at most ${MAX_EXPERIMENT_EVALUATORS} evaluators and templates in all`,
    path: ["evaluatorIds"],
  });

/** A createExperiment input. */
export type CreateExperimentInput = z.input<typeof createExperimentInputSchema>;

/** How to narrow an experiment's items (the `items` read): all given parts must hold. */
export const experimentItemFilterSchema = z.object({
  evaluatorId: z.string({ error: typeError("an evaluator id") }).nullish().describe("Only scores and runs of this evaluator."),
  scoreName: z.string({ error: typeError("a string") }).nullish().describe("Items with a score of this name."),
  minValue: z.number({ error: typeError("a number") }).nullish().describe("The score's value (a boolean as 0/1) is at least this."),
  maxValue: z.number({ error: typeError("a number") }).nullish().describe("The score's value (a boolean as 0/1) is at most this."),
  passed: z.boolean({ error: typeError("true or false") }).nullish().describe("The score passes (true) or fails (false), by combine.passed at 0.5; a NUMERIC score whose values in this experiment leave 0–1 matches neither (its summary has no passed and no passRate)."),
  category: z.string({ error: typeError("a string") }).nullish().describe("A CATEGORICAL score has this value."),
  outcome: z.enum(RUN_OUTCOMES, { error: () => `must be one of ${RUN_OUTCOMES.join(", ")}` }).nullish().describe("Items with a run of this outcome."),
});

/** An experiment items filter. */
export type ExperimentItemFilter = z.output<typeof experimentItemFilterSchema>;

/** Changes listed by compareExperiments by default (all are counted). */
export const DEFAULT_COMPARE_LIMIT = 100;
/** At most this many changes listed by compareExperiments. */
export const MAX_COMPARE_LIMIT = 1000;

/** The input of compareExperiments: two experiments on the same dataset. */
export const compareExperimentsInputSchema = z.object({
  baseId: z.string({ error: typeError("an experiment id") }),
  candidateId: z.string({ error: typeError("an experiment id") }),
  limit: z
    .number({ error: typeError("a whole number") })
    .int("must be a whole number")
    .min(0, `must be between 0 and ${MAX_COMPARE_LIMIT}`)
    .max(MAX_COMPARE_LIMIT, `must be between 0 and ${MAX_COMPARE_LIMIT}`)
    .nullish()
    .describe(`At most this many changes listed (all are counted), up to ${MAX_COMPARE_LIMIT}.`)
    .transform((limit) => limit ?? DEFAULT_COMPARE_LIMIT),
});
