import { evaluatorLimitsSchema } from "../../execution/index.js";
import { z } from "zod";
import type { InputIssue } from "../../lib/errors.js";
import { nameSchema } from "../../lib/text-rules.js";
import { parseIssues, typeError } from "../../lib/validation.js";
import { parseLibraryPins } from "../shared-libraries/schemas.js";
import { TEMPLATE_KINDS } from "../../lib/closed-lists.js";
import { validateParamSpecs, type ParamSpec } from "./settings.js";

/** Shared input schemas of the templates feature (GraphQL, CLI and MCP use the same). */
export const templateNameSchema = nameSchema(100);

/** A template's description: free text, at most 2,000 characters. */
export const templateDescriptionSchema = z.string({ error: typeError("a string") }).max(2000, "must be at most 2000 characters");

/** The Python source; its size, syntax and entry point are checked by `checkSource`. */
export const sourceCodeSchema = z.string({ error: typeError("a string") });

const NAME_TEXT = "The template's name, unique among the workspace's live templates.";
const DESCRIPTION_TEXT = "Free text, at most 2000 characters.";
const PARAMS_TEXT = "The settings: a list of {name, type, label, description, default, required, options}.";
const PINS_TEXT = "Shared-library pins: {library name: version}. Unpinned imports use the latest version at run time.";
const JUDGE_TEXT = "An llm template's judge: {messages: [{role, content}], output: [scores], maxOutputTokens?, cacheTtlSeconds?} (docs/judges.md).";
const LIMITS_TEXT =
  "Sandbox limits of one item its evaluators get unless they set their own: {cpuTimeMs?, wallTimeMs?, memoryBytes?}, each within the sandbox's ceilings (sandboxCapabilities.limits). Not versioned.";

/** The input of createTemplate. `params` is any JSON, checked by `validateParamSpecs`. */
export const createTemplateInputSchema = z.object({
  name: templateNameSchema.describe(NAME_TEXT),
  description: templateDescriptionSchema.optional().describe(DESCRIPTION_TEXT),
  kind: z.enum(TEMPLATE_KINDS, { error: `must be one of ${TEMPLATE_KINDS.join(", ")}` }).optional().describe("code (default: Python run in the sandbox) or llm (a judge: chat messages sent to a connection's model)."),
  sourceCode: sourceCodeSchema.optional().describe("A code template's Python defining evaluate(ctx) (or a compatible entry point); at most 256 KiB."),
  judge: z.unknown().optional().describe(JUDGE_TEXT),
  params: z.unknown().optional().describe(PARAMS_TEXT),
  /** Shared-library pins (library name → version), checked by `parseLibraryPins`. */
  libraryPins: z.unknown().optional().describe(PINS_TEXT),
  limits: evaluatorLimitsSchema.nullish().describe(LIMITS_TEXT),
});

/** The input of updateTemplate: every field optional; code or settings make a new version. */
export const updateTemplateInputSchema = z.object({
  name: templateNameSchema.optional().describe(NAME_TEXT),
  description: templateDescriptionSchema.optional().describe(DESCRIPTION_TEXT),
  sourceCode: sourceCodeSchema.optional().describe("New code (a code template): makes version N+1."),
  judge: z.unknown().optional().describe(`${JUDGE_TEXT} A new judge makes version N+1.`),
  params: z.unknown().optional().describe(`${PARAMS_TEXT} New settings make version N+1; null clears them.`),
  libraryPins: z.unknown().optional().describe(`${PINS_TEXT} New pins make version N+1.`),
  limits: evaluatorLimitsSchema.nullish().describe(`${LIMITS_TEXT} Replaces them (null or {} removes them); makes no new version.`),
});

/** A parsed createTemplate input. */
export type CreateTemplateInput = z.input<typeof createTemplateInputSchema>;
/** A parsed updateTemplate input. */
export type UpdateTemplateInput = z.input<typeof updateTemplateInputSchema>;

/**
 * Every field rule of a template input at once (names, description, settings, library pins),
 * without the code checks that need Python or the database. @returns the parsed fields, the
 * settings and pins when given, and the issues.
 */
export function parseTemplateInput<S extends typeof createTemplateInputSchema | typeof updateTemplateInputSchema>(
  schema: S,
  input: unknown,
): { data: z.infer<S> | null; specs: ParamSpec[] | null; pins: Record<string, number> | null; issues: InputIssue[] } {
  const parsed = parseIssues(schema, input);
  const data = parsed.data as z.infer<S> | null;
  const issues = [...parsed.issues];
  const raw = (input ?? {}) as { params?: unknown; libraryPins?: unknown };
  let specs: ParamSpec[] | null = null;
  if (raw.params !== undefined) {
    const checked = validateParamSpecs(raw.params);
    specs = checked.specs;
    issues.push(...checked.issues);
  }
  let pins: Record<string, number> | null = null;
  if (raw.libraryPins !== undefined) {
    const checked = parseLibraryPins(raw.libraryPins);
    pins = checked.pins;
    issues.push(...checked.issues);
  }
  return { data, specs, pins, issues };
}
