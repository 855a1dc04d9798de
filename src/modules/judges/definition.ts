import { z } from "zod";
import type { InputIssue } from "../../lib/errors.js";
import { parseIssues, typeError } from "../../lib/validation.js";
import { outputDefinitionSchema, type OutputDefinition } from "./output-definition.js";
import { messageIssues, type JudgeMessage } from "./prompt.js";

/**
 * What an LLM template (`kind: llm`) holds in place of code: its chat messages, its output
 * definition, and how it calls the model. Stored on TemplateVersion.judge; versioned like code (a
 * change makes version N+1). The model and temperature are not here: they are settings
 * (`model`, `temperature`: {@link MODEL_SETTING}), so evaluators pick their own.
 */

/** Messages one judge may send. */
export const MAX_JUDGE_MESSAGES = 50;
/** The longest message, in characters (before variables are filled). */
export const MAX_MESSAGE_CHARS = 100_000;
/** The most output tokens a judge may ask for; 1,024 when not given. */
export const MAX_OUTPUT_TOKENS = 32_000;
export const DEFAULT_MAX_OUTPUT_TOKENS = 1_024;
/** How long a cached answer is reused, in seconds (0: never cached); 1 day when not given, at most 30. */
export const DEFAULT_CACHE_TTL_SECONDS = 86_400;
export const MAX_CACHE_TTL_SECONDS = 30 * 86_400;

/**
 * The settings a judge reads by name: `model` (a string; absent or empty: the connection's default
 * model) and `temperature` (a number from 0 to 2; absent: the provider's default). Declared like any
 * setting, so an evaluator sets them as values and a template gives their defaults.
 */
export const MODEL_SETTING = "model";
export const TEMPERATURE_SETTING = "temperature";

const messageSchema = z
  .object({
    role: z.enum(["system", "user", "assistant"], { error: "must be one of system, user, assistant" }),
    content: z.string({ error: typeError("a string") }).min(1, "must not be empty").max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`),
  })
  .strict();

/** The judge of an LLM template, as given to createTemplate / updateTemplate (`judge`). */
export const judgeDefinitionSchema = z
  .object({
    messages: z
      .array(messageSchema, { error: typeError("a list of {role, content}") })
      .min(1, "must have at least one message")
      .max(MAX_JUDGE_MESSAGES, `must have at most ${MAX_JUDGE_MESSAGES} messages`)
      .describe("Chat messages; {{input}}, {{output}}, {{expected}}, {{context}}, {{metadata}}, {{spans}}, {{turns}} are filled (fenced as data) from the sample, {{params.NAME}} from the settings."),
    output: outputDefinitionSchema.describe("The scores the judge returns: [{name, type: boolean|numeric|categorical, min, max, values, higherIsBetter, description}]."),
    maxOutputTokens: z.number({ error: typeError("an integer") }).int("must be an integer").min(16, "must be at least 16").max(MAX_OUTPUT_TOKENS, `must be at most ${MAX_OUTPUT_TOKENS}`).optional()
      .describe(`The most tokens the answer may take (default ${DEFAULT_MAX_OUTPUT_TOKENS}).`),
    cacheTtlSeconds: z.number({ error: typeError("an integer") }).int("must be an integer").min(0, "must be at least 0").max(MAX_CACHE_TTL_SECONDS, `must be at most ${MAX_CACHE_TTL_SECONDS} (30 days)`).optional()
      .describe(`How long an identical call's answer is reused, in seconds (default ${DEFAULT_CACHE_TTL_SECONDS}; 0: never cached).`),
  })
  .strict();

/** A judge as stored (defaults filled). */
export interface JudgeDefinition {
  messages: JudgeMessage[];
  output: OutputDefinition;
  maxOutputTokens: number;
  cacheTtlSeconds: number;
}

/**
 * Every rule of a judge at once: its fields, and its messages' variables against the template's
 * settings (`{{params.NAME}}` must name a declared setting).
 * @param settingNames - the template's declared settings (after their own checks).
 * @param path - where the judge sits in the input (`judge`).
 * @returns the judge with defaults filled, or null, and the issues (paths like `judge.messages[0].content`).
 */
export function parseJudge(input: unknown, settingNames: readonly string[], path = "judge"): { judge: JudgeDefinition | null; issues: InputIssue[] } {
  const parsed = parseIssues(judgeDefinitionSchema, input, path);
  const issues = [...parsed.issues];
  if (!parsed.data) return { judge: null, issues };
  issues.push(...messageIssues(parsed.data.messages, settingNames).map((i) => ({ ...i, path: `${path}.${i.path}` })));
  const judge: JudgeDefinition = {
    messages: parsed.data.messages,
    output: parsed.data.output,
    maxOutputTokens: parsed.data.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    cacheTtlSeconds: parsed.data.cacheTtlSeconds ?? DEFAULT_CACHE_TTL_SECONDS,
  };
  return { judge: issues.length ? null : judge, issues };
}

/**
 * The rules on the settings a judge reads by name: `model` is a string, text or enum setting;
 * `temperature` a number setting whose default, when given, is from 0 to 2.
 * @returns issues at `params[i].type` / `params[i].default`.
 */
export function judgeSettingIssues(specs: readonly { name: string; type: string; default?: unknown }[]): InputIssue[] {
  const issues: InputIssue[] = [];
  specs.forEach((spec, i) => {
    if (spec.name === MODEL_SETTING && !["string", "text", "enum"].includes(spec.type)) issues.push({ path: `params[${i}].type`, message: `a judge's "${MODEL_SETTING}" setting names the model: it must be a string, text or enum setting` });
    if (spec.name === TEMPERATURE_SETTING) {
      if (spec.type !== "number") issues.push({ path: `params[${i}].type`, message: `a judge's "${TEMPERATURE_SETTING}" setting must be a number setting` });
      else if (typeof spec.default === "number" && (spec.default < 0 || spec.default > 2)) issues.push({ path: `params[${i}].default`, message: "a temperature must be from 0 to 2" });
    }
  });
  return issues;
}

/** The judge of a stored version (TemplateVersion.judge), or null for a code version. */
export function judgeOf(version: { judge?: unknown }): JudgeDefinition | null {
  return version.judge && typeof version.judge === "object" ? (version.judge as JudgeDefinition) : null;
}
