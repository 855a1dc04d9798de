import type { Command } from "commander";
import type { DeletedModelPriceRecord, ModelPriceRecord } from "../../api-client/price-operations.js";
import { action } from "../context.js";
import { numberFlag } from "../inputs.js";
import { emit, table } from "../output.js";

/** API fields no flag spells alike, by the flag or argument that gives them. */
const FLAGS = { model: "MODEL", inputUsdPerMillion: "--input", outputUsdPerMillion: "--output" };

/** A price for people: `gpt-4o-mini: $0.15 in, $0.6 out per 1M tokens (builtin)`. */
export function priceText(p: ModelPriceRecord): string {
  return `${p.model}: $${p.inputUsdPerMillion} in, $${p.outputUsdPerMillion} out per 1M tokens (${p.source})`;
}

/** A deleteModelPrice answer for people: what was deleted and what applies now. */
export function deletedPriceText(r: DeletedModelPriceRecord): string {
  const now = r.appliesNow ? `now: ${priceText(r.appliesNow)}` : "it has no price now: its judge calls record no cost";
  return `deleted the workspace's price of ${r.deleted.model}; ${now}`;
}

/** The price table for people, by model name (prices as stored: a table cell's 3 decimals would show 0.0004 as 0.000). */
export function pricesTable(list: ModelPriceRecord[]): string {
  return table(["model", "input $/1M", "output $/1M", "source"], list.map((p) => [p.model, String(p.inputUsdPerMillion), String(p.outputUsdPerMillion), p.source]));
}

/**
 * `oodle genai prices …`: the price table of judge calls (list, set, delete), in US dollars per
 * million tokens: the built-in list prices and the workspace's own, which replace them.
 */
export function pricesCommand(parent: Command): void {
  const prices = parent.command("prices").alias("price").description("model prices (USD per 1M tokens) that judge calls' costs are computed from: built-in list prices, replaced by the workspace's own");

  prices
    .command("list")
    .description("the price table in force: the workspace's prices and the built-in ones it does not replace")
    .action(
      action(async (ctx) => {
        const list = await ctx.ops.prices.listModelPrices();
        emit(ctx.output, list, () => pricesTable(list));
      }),
    );

  prices
    .command("set <model>")
    .description("sets the workspace's price of a model (it replaces the built-in one of that name); it also prices the model's dated names (MODEL-2024-07-18)")
    .requiredOption("--input <usd>", "US dollars per million input (prompt) tokens, 0 to 10000")
    .requiredOption("--output <usd>", "US dollars per million output (completion) tokens, 0 to 10000")
    .addHelpText("after", "\nExamples:\n  oodle genai prices set gpt-4o-mini --input 0.15 --output 0.60\n  oodle genai prices set llama3.2 --input 0 --output 0      # a local model: free")
    .action(
      action(async (ctx, model: string) => {
        const p = await ctx.ops.prices.setModelPrice({ model, inputUsdPerMillion: numberFlag(ctx.options.input, "--input"), outputUsdPerMillion: numberFlag(ctx.options.output, "--output") });
        emit(ctx.output, p, () => `set ${priceText(p)}`);
      }, FLAGS),
    );

  prices
    .command("delete <model>")
    .description("deletes the workspace's price of a model: the built-in one applies again (built-in prices cannot be deleted)")
    .action(
      action(async (ctx, model: string) => {
        const r = await ctx.ops.prices.deleteModelPrice(model);
        emit(ctx.output, r, () => deletedPriceText(r));
      }, FLAGS),
    );
}
