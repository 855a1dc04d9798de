import { z } from "zod";
import { typeError } from "./validation.js";

/**
 * The rules every door (GraphQL, the CLI and MCP through it, OTLP, dataset imports) applies to
 * the names and ids a person reads to tell records apart: evaluator, template, dataset,
 * experiment, backfill, workspace and API key names, score names, span names and span ids.
 * Written once here; the README's "Input rules" section states them for users, and
 * python-lib/oodle_eval/v1/score.py applies the same to score names.
 *
 * - Not empty, and not only whitespace (whitespace-only is refused as empty, never looked up).
 * - No control characters (U+0000–U+001F, U+007F–U+009F) nor line or paragraph separators
 *   (U+2028, U+2029): a name is one line.
 * - No default-ignorable characters (Unicode's Default_Ignorable_Code_Point: zero-width space,
 *   word joiner, soft hyphen, byte order mark, Hangul fillers, the bidirectional marks,
 *   embeddings, overrides and isolates such as U+202E RIGHT-TO-LEFT OVERRIDE…): they are
 *   invisible, or make a name display as another ("exact​match" vs "exactmatch", "‮hctam" shown
 *   as "match"). Four kinds are kept where scripts and emoji need them: U+200C ZERO WIDTH
 *   NON-JOINER and U+200D ZERO WIDTH JOINER between two non-ASCII characters (Persian and Indic
 *   spelling, 👩‍💻), and the variation selectors U+FE00–U+FE0F and the tags U+E0020–U+E007F
 *   after a non-ASCII character (❤️, 🏴 flags).
 *
 * Refused, never normalised: the client is told the field, the character (as U+XXXX) and its
 * position, and nothing is stored.
 */
export const NAME_RULE =
  "not empty or only whitespace, one line, with no control, bidirectional-control or invisible (default-ignorable) character";

/** Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt, Unicode 15.1), as [first, last]. */
const DEFAULT_IGNORABLE: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfff8],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0000, 0xe0fff],
];

function isDefaultIgnorable(cp: number): boolean {
  return DEFAULT_IGNORABLE.some(([first, last]) => cp >= first && cp <= last);
}

const isControl = (cp: number) => cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f) || cp === 0x2028 || cp === 0x2029;
const isJoiner = (cp: number) => cp === 0x200c || cp === 0x200d;
const isSelectorOrTag = (cp: number) => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0020 && cp <= 0xe007f);

/** `U+202E` for a code point. */
export function codePointName(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * What breaks the character rules of {@link NAME_RULE} in `text` (blankness is the schema's
 * business: see {@link nameSchema}), or null. The message names the character and its 1-based
 * position in characters (code points).
 */
export function invisibleCharacterProblem(text: string): string | null {
  const cps = Array.from(text, (c) => c.codePointAt(0)!);
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    const at = `(character ${i + 1})`;
    if (isControl(cp)) return `must not contain the control character ${codePointName(cp)} ${at}: a name is one line of visible text`;
    if (!isDefaultIgnorable(cp)) continue;
    const before = cps[i - 1];
    const after = cps[i + 1];
    if (isJoiner(cp) && before !== undefined && before > 0x7f && after !== undefined && after > 0x7f) continue;
    if (isSelectorOrTag(cp) && before !== undefined && before > 0x7f) continue;
    const kind = (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f || cp === 0x061c ? "bidirectional control" : "invisible character";
    return `must not contain the ${kind} ${codePointName(cp)} ${at}: it makes a name display as another`;
  }
  return null;
}

/**
 * A zod refinement adding {@link invisibleCharacterProblem} to a string schema
 * (`.superRefine(visibleText)`); silent on a blank value, which the schema refuses as empty.
 */
export function visibleText(value: string, ctx: z.RefinementCtx): void {
  if (value.trim() === "") return;
  const problem = invisibleCharacterProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
}

/** Refuses a string that is only whitespace, saying it is empty (for fields that are not trimmed). */
export function notBlank(value: string, ctx: z.RefinementCtx): void {
  if (value.length > 0 && value.trim() === "") ctx.addIssue({ code: "custom", message: "must not be empty (it is only whitespace)" });
}

/**
 * A record's name: trimmed (leading and trailing whitespace is dropped, as the API answers
 * show), then 1 to `max` characters under {@link NAME_RULE}.
 */
export function nameSchema(max: number) {
  return z
    .string({ error: typeError("a string") })
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .superRefine(visibleText);
}

/**
 * A name kept exactly as sent (span names, score names: they come from instrumented code and
 * evaluator results, and are compared as sent): 1 to `max` characters, not only whitespace,
 * under {@link NAME_RULE}.
 */
export function exactNameSchema(max: number, error: Parameters<typeof z.string>[0] = { error: typeError("a string") }) {
  return z
    .string(error)
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .superRefine(notBlank)
    .superRefine(visibleText);
}

/**
 * The problem of a name given to look a record up (`evaluator(name: …)`, `trace(traceId: …)`),
 * or null: an empty or whitespace-only name is refused as empty instead of answering NOT_FOUND.
 */
export function lookupNameProblem(name: string): string | null {
  if (name === "") return "must not be empty";
  return name.trim() === "" ? "must not be empty (it is only whitespace)" : null;
}
