import { z } from "zod";
import { nameSchema } from "../../lib/text-rules.js";
import { typeError } from "../../lib/validation.js";

/** Shared input schemas of model prices (GraphQL, CLI and MCP use the same). */

/** The highest price accepted, in USD per million tokens (a typo guard: the dearest list price is far below it). */
export const MAX_USD_PER_MILLION = 10_000;
/** Prices a workspace may set (rows of its own; the built-in table does not count). */
export const MAX_MODEL_PRICES_PER_WORKSPACE = 1000;

/** A price in USD per million tokens: a (finite: zod refuses Infinity and NaN) number from 0 to {@link MAX_USD_PER_MILLION}. */
function usdPerMillion(what: string) {
  return z
    .number({ error: typeError("a number") })
    .min(0, "must be at least 0")
    .max(MAX_USD_PER_MILLION, `must be at most ${MAX_USD_PER_MILLION}`)
    .describe(`US dollars per million ${what} tokens, 0 to ${MAX_USD_PER_MILLION} (e.g. 0.15).`);
}

/** The model name of a price. */
export const modelNameSchema = nameSchema(200).describe(
  "The model's name as the provider reports it (e.g. gpt-4o-mini, claude-3-5-haiku-latest). It prices that name and any dated name made of it and '-' (gpt-4o-mini-2024-07-18), unless a longer name is priced.",
);

/** The input of setModelPrice. */
export const setModelPriceInputSchema = z
  .object({
    model: modelNameSchema,
    inputUsdPerMillion: usdPerMillion("input (prompt)"),
    outputUsdPerMillion: usdPerMillion("output (completion)"),
  })
  .strict();
/** A setModelPrice input. */
export type SetModelPriceInput = z.infer<typeof setModelPriceInputSchema>;

/** The input of deleteModelPrice. */
export const deleteModelPriceInputSchema = z.object({ model: modelNameSchema.describe("The model whose workspace price is deleted (its built-in price, if any, applies again).") }).strict();
