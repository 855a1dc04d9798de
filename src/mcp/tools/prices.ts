import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { priceText } from "../../cli/commands/prices.js";
import type { Operations } from "../../api-client/operations.js";
import { setModelPriceInputSchema } from "../../modules/judges/price-schemas.js";
import { badArguments, toolResult } from "../results.js";

const fields = setModelPriceInputSchema.shape;

/**
 * The arguments of genai_prices: list the price table, or set a workspace's price. Deleting a
 * price is left to the CLI and GraphQL (`oodle genai prices delete`).
 */
// Strict: a misspelt argument is refused by name, as the CLI and GraphQL refuse it, never dropped.
export const pricesInput = z.strictObject({
  action: z.enum(["list", "set"]).describe("list: the price table in force (the workspace's prices and the built-in list prices it does not replace), USD per 1M tokens; set: the workspace's price of one model."),
  model: fields.model.describe(`set: ${fields.model.description ?? "the model"}`).optional(),
  inputUsdPerMillion: fields.inputUsdPerMillion.describe(`set: ${fields.inputUsdPerMillion.description ?? "USD per million input tokens"}`).optional(),
  outputUsdPerMillion: fields.outputUsdPerMillion.describe(`set: ${fields.outputUsdPerMillion.description ?? "USD per million output tokens"}`).optional(),
});

/** The tool's arguments. */
export type PricesArgs = z.infer<typeof pricesInput>;

/** genai_prices: model prices over the same GraphQL operations as the CLI (`oodle genai prices`). */
export const pricesTool = {
  name: "genai_prices",
  description:
    "The model prices (US dollars per million input and output tokens) that the cost of each LLM-judge call is computed from: built-in list prices of OpenAI and Anthropic models, replaced by the workspace's own. " +
    '{"action": "list"} lists them (model, prices, source workspace or builtin); {"action": "set", "model": "gpt-4o-mini", "inputUsdPerMillion": 0.15, "outputUsdPerMillion": 0.6} sets the workspace\'s price of a model ' +
    "(it also prices the model's dated names, e.g. gpt-4o-mini-2024-07-18). A model without a price gets no cost (null), never a guess. Deleting a price is done with the CLI (oodle genai prices delete).",
  inputSchema: pricesInput,
  async run(ops: Operations, args: PricesArgs): Promise<CallToolResult> {
    switch (args.action) {
      case "list": {
        const list = await ops.prices.listModelPrices();
        return toolResult(list, list.map(priceText).join("\n"));
      }
      case "set": {
        const missing = (["model", "inputUsdPerMillion", "outputUsdPerMillion"] as const).filter((k) => args[k] === undefined);
        if (missing.length) throw badArguments(missing.map((path) => ({ path, message: `is required for action "set"` })));
        const p = await ops.prices.setModelPrice({ model: args.model!, inputUsdPerMillion: args.inputUsdPerMillion!, outputUsdPerMillion: args.outputUsdPerMillion! });
        return toolResult(p, `set ${priceText(p)}`);
      }
    }
  },
};
