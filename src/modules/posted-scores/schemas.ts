import { z } from "zod";
import { nestingDepth, RESULT_BOUNDS } from "../../execution/result-validation.js";
import { SCORE_DATA_TYPES } from "../../lib/closed-lists.js";
import { exactNameSchema } from "../../lib/text-rules.js";
import { typeError } from "../../lib/validation.js";

/** One score posted for an external evaluator (docs/scores.md § Score). */
export const postedScoreSchema = z
  .object({
    name: exactNameSchema(100),
    value: z
      .union([z.boolean(), z.number().finite(), z.string().max(1_000, "must be at most 1,000 characters"), z.null()], {
        error: "must be true/false, a finite number, a string or null",
      })
      .describe("true/false, a finite number, a string, or null (no value)."),
    dataType: z.enum(SCORE_DATA_TYPES, { error: "must be BOOLEAN, NUMERIC or CATEGORICAL" }).nullable().optional(),
    higherIsBetter: z.boolean({ error: typeError("true or false") }).nullable().optional().describe("Default true."),
    comment: z.string({ error: typeError("a string") }).max(4_000, "must be at most 4,000 characters").nullable().optional(),
    metadata: z
      .record(z.string(), z.unknown(), { error: "must be an object" })
      .superRefine((m, ctx) => {
        // The bounds of a code evaluator's score metadata (src/execution/result-validation.ts), so a
        // posted score is held to what a computed one is.
        if (nestingDepth(m, RESULT_BOUNDS.maxMetadataDepth) > RESULT_BOUNDS.maxMetadataDepth) {
          ctx.addIssue({ code: "custom", message: `must nest at most ${RESULT_BOUNDS.maxMetadataDepth} levels deep` });
          return;
        }
        const bytes = Buffer.byteLength(JSON.stringify(m), "utf8");
        if (bytes > RESULT_BOUNDS.maxMetadataBytes) ctx.addIssue({ code: "custom", message: `must be at most ${RESULT_BOUNDS.maxMetadataBytes} bytes of JSON (got ${bytes}), as a code evaluator's score metadata` });
      })
      .nullable()
      .optional(),
  })
  .superRefine((score, ctx) => {
    const type = score.dataType ?? inferDataType(score.value);
    const fits =
      score.value === null ||
      (type === "BOOLEAN" && typeof score.value === "boolean") ||
      (type === "NUMERIC" && typeof score.value === "number") ||
      (type === "CATEGORICAL" && typeof score.value === "string");
    if (!fits) ctx.addIssue({ code: "custom", path: ["value"], message: `does not fit the data type ${type}` });
  });

/** The scores of one submitScores call. */
export const postedScoresSchema = z
  .array(postedScoreSchema, { error: "must be a list of scores" })
  .min(1, "must have at least one score")
  .max(50, "must have at most 50 scores")
  .superRefine((scores, ctx) => {
    const seen = new Set<string>();
    scores.forEach((s, i) => {
      if (seen.has(s.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `two scores are named "${s.name}"` });
      seen.add(s.name);
    });
  });

/** One posted score as given. */
export type PostedScore = z.infer<typeof postedScoreSchema>;

/** The data type of a value when none is given (bool → BOOLEAN, number → NUMERIC, string → CATEGORICAL). */
export function inferDataType(value: unknown): "BOOLEAN" | "NUMERIC" | "CATEGORICAL" {
  if (typeof value === "boolean") return "BOOLEAN";
  if (typeof value === "string") return "CATEGORICAL";
  return "NUMERIC";
}
