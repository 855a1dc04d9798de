import { z } from "zod";
import { invisibleCharacterProblem } from "../lib/text-rules.js";

/** Bounds on one result (docs/scores.md § Score); anything else is `invalid_result`. */
export const RESULT_BOUNDS = {
  maxScores: 100,
  maxNameChars: 100,
  maxCategoricalChars: 1_000,
  maxCommentChars: 10_000,
  maxMetadataBytes: 16 * 1024,
  /** Containers (objects, arrays) nested in one metadata dict, the dict itself counted as 1. */
  maxMetadataDepth: 64,
} as const;

/**
 * The deepest nesting of objects and arrays in `value` (a scalar is 0, `{}` is 1), found without
 * recursion (a recursive walk, or `JSON.stringify`, throws RangeError on a deep enough value).
 * Stops as soon as `limit` is passed and returns `limit + 1`.
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth > limit) return limit + 1;
    if (depth > deepest) deepest = depth;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

const finite = z.number().refine(Number.isFinite, "must be a finite number (no NaN or Infinity)");

/** What a refused value is, for the message (JSON has no NaN, but a value may not come from JSON). */
function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  return value === undefined ? "nothing" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** A score's value: a boolean, a finite number (a 64-bit float), a string or null (docs/scores.md § Values). */
const scoreValue = z.union([z.boolean(), finite, z.string().max(RESULT_BOUNDS.maxCategoricalChars), z.null()], {
  error: (issue) =>
    issue.code === "invalid_union" ? `must be a boolean, a finite number, a string or null, got ${describeValue(issue.input)}` : undefined,
});

/** zod schema of one score as the runner sends it. */
export const scoreSchema = z
  .object({
    name: z
      .string()
      .min(1, "name must not be empty")
      .max(RESULT_BOUNDS.maxNameChars, `name must be at most ${RESULT_BOUNDS.maxNameChars} characters`)
      .refine((name) => !/[\r\n]/.test(name), "name must not contain a newline")
      .superRefine((name, ctx) => {
        // The name rule of every door (src/lib/text-rules.ts): not blank, nothing invisible.
        const problem = name.trim() === "" ? "must not be empty (it is only whitespace)" : invisibleCharacterProblem(name);
        if (problem) ctx.addIssue({ code: "custom", message: `name ${problem}` });
      }),
    value: scoreValue,
    data_type: z.enum(["BOOLEAN", "NUMERIC", "CATEGORICAL"]),
    higher_is_better: z.boolean(),
    comment: z.string().max(RESULT_BOUNDS.maxCommentChars).nullable(),
    metadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .superRefine((m, ctx) => {
        if (m === null) return;
        if (nestingDepth(m, RESULT_BOUNDS.maxMetadataDepth) > RESULT_BOUNDS.maxMetadataDepth) {
          ctx.addIssue({ code: "custom", message: `metadata must nest at most ${RESULT_BOUNDS.maxMetadataDepth} levels deep` });
        } else if (Buffer.byteLength(JSON.stringify(m), "utf8") > RESULT_BOUNDS.maxMetadataBytes) {
          // (JSON.stringify recurses: only reached once the depth is bounded.)
          ctx.addIssue({ code: "custom", message: `metadata must be at most ${RESULT_BOUNDS.maxMetadataBytes} bytes of JSON` });
        }
      }),
  })
  .strict()
  .superRefine((score, ctx) => {
    const v = score.value;
    if (v === null) return;
    const ok =
      (score.data_type === "BOOLEAN" && typeof v === "boolean") ||
      (score.data_type === "NUMERIC" && typeof v === "number") ||
      (score.data_type === "CATEGORICAL" && typeof v === "string");
    if (!ok) ctx.addIssue({ code: "custom", message: `value of type ${typeof v} does not fit data_type ${score.data_type}` });
  });

/** One validated score. */
export type Score = z.infer<typeof scoreSchema>;

/** zod schema of a whole result's scores: at most 100, unique names. */
export const scoresSchema = z
  .array(scoreSchema)
  .max(RESULT_BOUNDS.maxScores, `at most ${RESULT_BOUNDS.maxScores} scores`)
  .superRefine((scores, ctx) => {
    const seen = new Set<string>();
    for (const s of scores) {
      if (seen.has(s.name)) ctx.addIssue({ code: "custom", message: `score ${JSON.stringify(s.name)} appears twice` });
      seen.add(s.name);
    }
  });

/**
 * Validates the scores of one result. Never throws: a value that makes validation itself fail is
 * an invalid result like any other.
 * @returns `{ ok: true, scores }` or `{ ok: false, message }` naming the first problem (and the
 *   score when there is one), for an `invalid_result` error.
 */
export function validateScores(raw: unknown): { ok: true; scores: Score[] } | { ok: false; message: string } {
  let parsed: ReturnType<typeof scoresSchema.safeParse>;
  try {
    parsed = scoresSchema.safeParse(raw);
  } catch (error) {
    return { ok: false, message: `the scores could not be validated (${error instanceof Error ? error.name : "error"})` };
  }
  if (parsed.success) return { ok: true, scores: parsed.data };
  const issue = parsed.error.issues[0];
  const index = issue?.path[0];
  let where = "";
  if (typeof index === "number" && Array.isArray(raw)) {
    const name = (raw[index] as { name?: unknown } | undefined)?.name;
    where = typeof name === "string" ? `score ${JSON.stringify(name.slice(0, 100))}` : `score #${index + 1}`;
    const field = issue?.path[1];
    if (field !== undefined) where += ` ${String(field)}`;
    where += ": ";
  }
  return { ok: false, message: `${where}${issue?.message ?? "invalid scores"}` };
}
