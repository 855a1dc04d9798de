import { z } from "zod";
import { scoresSchema, type Score } from "../../execution/result-validation.js";
import { nameSchema } from "../../lib/text-rules.js";
import { typeError } from "../../lib/validation.js";

/**
 * The output definition of an LLM judge (issue 30): the scores it returns, each with its type and
 * direction. From it come the JSON schema the provider is asked to answer with (structured output:
 * OpenAI's `response_format: json_schema`, strict; Anthropic's tool `input_schema`), and the check of
 * the answer: an answer that does not match is `invalid_result` with the reason, never a guessed
 * score. The answer holds one key per score and `reasoning`, which becomes every score's comment.
 */

/** Scores one judge may return, and the values one categorical score may have. */
export const MAX_JUDGE_SCORES = 20;
export const MAX_CATEGORICAL_VALUES = 50;
/** The answer's key that holds the judge's reasoning (so no score may take the name). */
export const REASONING_KEY = "reasoning";
/** The longest reasoning kept, in characters (a score comment's bound, docs/scores.md). */
export const MAX_REASONING_CHARS = 10_000;

const JUDGE_SCORE_TYPES = ["boolean", "numeric", "categorical"] as const;

/** One score of a judge's output definition. */
export const judgeScoreSchema = z
  .object({
    name: nameSchema(100).describe("The score's name, as code reads it with ctx.score(judge, name)."),
    type: z.enum(JUDGE_SCORE_TYPES, { error: `must be one of ${JUDGE_SCORE_TYPES.join(", ")}` }).describe("boolean, numeric (with min and max) or categorical (with values)."),
    description: z.string({ error: typeError("a string") }).max(1000, "must be at most 1000 characters").optional().describe("What the score means: given to the model with the schema."),
    min: z.number({ error: typeError("a number") }).finite("must be a finite number").optional().describe("numeric: the lowest value the model may give."),
    max: z.number({ error: typeError("a number") }).finite("must be a finite number").optional().describe("numeric: the highest value the model may give."),
    values: z.array(nameSchema(100), { error: typeError("a list of strings") }).optional().describe("categorical: the values the model may give."),
    higherIsBetter: z.boolean({ error: typeError("true or false") }).optional().describe("boolean and numeric: whether a higher value (true) is better. Required there; a categorical score has no direction."),
  })
  .strict()
  .superRefine((score, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (score.name === REASONING_KEY) issue("name", `"${REASONING_KEY}" is the answer's reasoning: give the score another name`);
    if (score.type === "numeric") {
      if (score.min === undefined) issue("min", "a numeric score needs min");
      if (score.max === undefined) issue("max", "a numeric score needs max");
      if (score.min !== undefined && score.max !== undefined && score.min >= score.max) issue("min", "must be below max");
    } else {
      if (score.min !== undefined) issue("min", `is for numeric scores only (this one is ${score.type})`);
      if (score.max !== undefined) issue("max", `is for numeric scores only (this one is ${score.type})`);
    }
    if (score.type === "categorical") {
      if (!score.values || score.values.length < 2) issue("values", "a categorical score needs at least 2 values");
      else if (score.values.length > MAX_CATEGORICAL_VALUES) issue("values", `must have at most ${MAX_CATEGORICAL_VALUES} values`);
      else if (new Set(score.values).size !== score.values.length) issue("values", "must not repeat a value");
      if (score.higherIsBetter !== undefined) issue("higherIsBetter", "a categorical score has no direction");
    } else {
      if (score.values !== undefined) issue("values", `is for categorical scores only (this one is ${score.type})`);
      if (score.higherIsBetter === undefined) issue("higherIsBetter", `a ${score.type} score needs a direction: true when higher is better`);
    }
  });

/** One score of an output definition. */
export type JudgeScore = z.infer<typeof judgeScoreSchema>;

/** A judge's output definition: 1 to 20 scores with distinct names. */
export const outputDefinitionSchema = z
  .array(judgeScoreSchema, { error: typeError("a list of scores") })
  .min(1, "must define at least one score")
  .max(MAX_JUDGE_SCORES, `must define at most ${MAX_JUDGE_SCORES} scores`)
  .superRefine((scores, ctx) => {
    const seen = new Set<string>();
    scores.forEach((s, i) => {
      if (seen.has(s.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `"${s.name}" is defined twice` });
      seen.add(s.name);
    });
  });

/** A judge's output definition. */
export type OutputDefinition = z.infer<typeof outputDefinitionSchema>;

/** The JSON schema of one score's value. */
function valueSchemaOf(score: JudgeScore): Record<string, unknown> {
  const described = score.description ? { description: score.description } : {};
  if (score.type === "boolean") return { type: "boolean", ...described };
  if (score.type === "numeric") return { type: "number", minimum: score.min, maximum: score.max, ...described };
  return { type: "string", enum: score.values, ...described };
}

/**
 * The JSON schema (draft 2020-12 subset that OpenAI's strict structured output and Anthropic's tool
 * input accept) of the answer: an object with `reasoning` first (the model explains, then scores),
 * then one required key per score, nothing else. Deterministic: the same definition gives the same
 * schema (it is part of the prompt a result cache keys on).
 */
export function answerSchemaOf(definition: OutputDefinition): Record<string, unknown> {
  const properties: Record<string, unknown> = { [REASONING_KEY]: { type: "string", description: "Why the scores are what they are, briefly." } };
  for (const score of definition) properties[score.name] = valueSchemaOf(score);
  return { type: "object", properties, required: [REASONING_KEY, ...definition.map((s) => s.name)], additionalProperties: false };
}

/** Why a value does not fit its score, or null. */
function valueProblem(score: JudgeScore, value: unknown): string | null {
  const got = value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "string" ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : typeof value === "object" ? "an object" : String(value);
  if (score.type === "boolean") return typeof value === "boolean" ? null : `must be true or false, got ${got}`;
  if (score.type === "numeric") {
    if (typeof value !== "number" || !Number.isFinite(value)) return `must be a number, got ${got}`;
    return value < score.min! || value > score.max! ? `must be between ${score.min} and ${score.max}, got ${value}` : null;
  }
  return typeof value === "string" && score.values!.includes(value) ? null : `must be one of ${score.values!.map((v) => JSON.stringify(v)).join(", ")}, got ${got}`;
}

/**
 * The scores of a judge's answer, checked against its definition: the answer (the model's text,
 * or the object a tool call carries) must be one JSON object holding `reasoning` (a string) and
 * every score's key with a value of its type within its range or values, and no other key.
 * @returns the scores in the definition's order (`comment`: the reasoning), or the first problem as
 *   a sentence naming the key, for an `invalid_result` error.
 */
export function scoresOfAnswer(definition: OutputDefinition, answer: unknown): { ok: true; scores: Score[] } | { ok: false; message: string } {
  let parsed = answer;
  if (typeof answer === "string") {
    try {
      parsed = JSON.parse(answer);
    } catch {
      return { ok: false, message: `the judge's answer is not JSON (starts with ${JSON.stringify(answer.slice(0, 40))})` };
    }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { ok: false, message: "the judge's answer must be a JSON object of its scores and reasoning" };
  const object = parsed as Record<string, unknown>;
  const known = new Set([REASONING_KEY, ...definition.map((s) => s.name)]);
  const extra = Object.keys(object).find((k) => !known.has(k));
  if (extra !== undefined) return { ok: false, message: `the judge's answer has a key its output definition does not: ${JSON.stringify(extra)}` };
  const reasoning = object[REASONING_KEY];
  if (typeof reasoning !== "string") return { ok: false, message: `the judge's answer needs "${REASONING_KEY}" as a string` };
  if (reasoning.length > MAX_REASONING_CHARS) return { ok: false, message: `the judge's "${REASONING_KEY}" must be at most ${MAX_REASONING_CHARS} characters (got ${reasoning.length})` };
  const scores: Score[] = [];
  for (const score of definition) {
    if (!Object.hasOwn(object, score.name)) return { ok: false, message: `the judge's answer has no score "${score.name}"` };
    const problem = valueProblem(score, object[score.name]);
    if (problem) return { ok: false, message: `the judge's score "${score.name}" ${problem}` };
    const dataType = score.type === "boolean" ? "BOOLEAN" : score.type === "numeric" ? "NUMERIC" : "CATEGORICAL";
    scores.push({ name: score.name, value: object[score.name] as Score["value"], data_type: dataType, higher_is_better: score.higherIsBetter ?? true, comment: reasoning, metadata: null });
  }
  // The bounds every result obeys (docs/scores.md § Score), as for code evaluators.
  const checked = scoresSchema.safeParse(scores);
  return checked.success ? { ok: true, scores: checked.data } : { ok: false, message: `the judge's scores break a result bound: ${checked.error.issues[0]?.message ?? "invalid"}` };
}
