import type { ModelPriceSource } from "../../lib/closed-lists.js";

/** The price of one model: US dollars per million tokens, input (prompt) and output (completion). */
export interface Price {
  /** USD per 1,000,000 input tokens. */
  inputUsdPerMillion: number;
  /** USD per 1,000,000 output tokens. */
  outputUsdPerMillion: number;
}

/** The token counts of one call, as the provider reported them (whole numbers ≥ 0). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * The built-in price table: the providers' public list prices (standard tier, no batch or
 * cached-input discount) as known to us, in USD per 1M tokens, recorded 2026-12-06. They are
 * not fetched from the providers and may be out of date: a workspace overrides any of them, and
 * prices a model that is not here, with `setModelPrice` (`oodle genai prices set`;
 * docs/connections.md § Prices). A model matches its key exactly, or as the key followed by
 * `-` and more (a dated name such as `gpt-4o-mini-2024-07-18`): see {@link priceOf}.
 */
export const BUILTIN_PRICES: ReadonlyMap<string, Readonly<Price>> = new Map(
  (
    [
      // OpenAI
      ["gpt-4o", 2.5, 10.0],
      ["gpt-4o-mini", 0.15, 0.6],
      ["gpt-4.1", 2.0, 8.0],
      ["gpt-4.1-mini", 0.4, 1.6],
      ["gpt-4.1-nano", 0.1, 0.4],
      // Anthropic
      ["claude-3-5-haiku-latest", 0.8, 4.0],
      ["claude-3-haiku-20240307", 0.25, 1.25],
      ["claude-sonnet-4-0", 3.0, 15.0],
      ["claude-3-7-sonnet-latest", 3.0, 15.0],
      ["claude-opus-4-0", 15.0, 75.0],
      // The dated ids the Anthropic aliases above stand for (the name a response may report for
      // them; the prefix rule cannot reach these): the same models at the same prices.
      ["claude-3-5-haiku-20241022", 0.8, 4.0],
      ["claude-3-7-sonnet-20250219", 3.0, 15.0],
      ["claude-sonnet-4-20250514", 3.0, 15.0],
      ["claude-opus-4-20250514", 15.0, 75.0],
    ] as const
  ).map(([model, inputUsdPerMillion, outputUsdPerMillion]) => [model, Object.freeze({ inputUsdPerMillion, outputUsdPerMillion })]),
);

/** The price that applies to a model: the row's key (the model name or the prefix it matched), its price and where it comes from. */
export interface AppliedPrice {
  /** The table key that matched: the model itself, or a prefix of it (`gpt-4o-mini` for `gpt-4o-mini-2024-07-18`). */
  key: string;
  price: Readonly<Price>;
  source: ModelPriceSource;
}

/** True when `key` prices `model` by prefix: the model is the key followed by `-` and more. */
function matchesByPrefix(model: string, key: string): boolean {
  return model.length > key.length + 1 && model.startsWith(key) && model[key.length] === "-";
}

/**
 * The price of `model` from the workspace's overrides over {@link BUILTIN_PRICES}, one table where a
 * workspace row replaces the built-in row of the same name. The model matches, in order:
 * 1. a key equal to it (the workspace's, else the built-in one);
 * 2. the longest key such that the model is that key followed by `-` and more
 *    (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`, not `gpt-4o`); of the same key, the workspace's.
 * Names are compared as sent (case-sensitive, no trimming).
 * @returns null when no key matches: the model has no price (never a guess).
 */
export function priceOf(model: string, overrides: ReadonlyMap<string, Readonly<Price>>): AppliedPrice | null {
  const own = overrides.get(model);
  if (own) return { key: model, price: own, source: "workspace" };
  const builtin = BUILTIN_PRICES.get(model);
  if (builtin) return { key: model, price: builtin, source: "builtin" };
  let best: AppliedPrice | null = null;
  // Workspace keys first: a built-in key of the same length (the same key) does not replace it.
  for (const [table, source] of [[overrides, "workspace"], [BUILTIN_PRICES, "builtin"]] as const) {
    for (const [key, price] of table) {
      if (matchesByPrefix(model, key) && (!best || key.length > best.key.length)) best = { key, price, source };
    }
  }
  return best;
}

/** Costs are rounded to this many USD (1e-9: a nano-dollar), so sums of stored costs do not carry float noise. */
export const COST_PRECISION_USD = 1e-9;

/** What {@link costOf} answers. */
export interface CallCost {
  /** The cost in USD rounded to {@link COST_PRECISION_USD}; null when the model has no price. */
  costUsd: number | null;
  /** Where the price came from: the workspace's override, the built-in table, or null (no price). */
  priceSource: ModelPriceSource | null;
}

/**
 * The cost of one provider call, in US dollars:
 *
 *   cost = inputTokens / 1e6 × inputUsdPerMillion + outputTokens / 1e6 × outputUsdPerMillion
 *
 * rounded to the nearest 1e-9 USD ({@link COST_PRECISION_USD}), with the price {@link priceOf}
 * finds for `model` (the name the provider reported, e.g. `gpt-4o-mini-2024-07-18`) in the
 * workspace's `overrides` (from `overridesOf`) over the built-in table. Pure: reads nothing else.
 * Example: gpt-4o-mini (0.15 / 0.60), 1,234 in and 567 out → 0.0001851 + 0.0003402 = 0.0005253.
 * @returns `{costUsd: null, priceSource: null}` when the model has no price: never a guess.
 * @throws RangeError when a token count is not a finite number ≥ 0 (a caller's bug, not a provider's answer to price).
 */
export function costOf(model: string, usage: TokenUsage, overrides: ReadonlyMap<string, Readonly<Price>>): CallCost {
  for (const field of ["inputTokens", "outputTokens"] as const) {
    const n = usage[field];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) throw new RangeError(`costOf: usage.${field} must be a finite number ≥ 0, got ${String(n)}`);
  }
  const applied = priceOf(model, overrides);
  if (!applied) return { costUsd: null, priceSource: null };
  const { inputUsdPerMillion, outputUsdPerMillion } = applied.price;
  const raw = (usage.inputTokens / 1e6) * inputUsdPerMillion + (usage.outputTokens / 1e6) * outputUsdPerMillion;
  return { costUsd: roundUsd(raw), priceSource: applied.source };
}

/** `usd` rounded to the nearest {@link COST_PRECISION_USD}. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
