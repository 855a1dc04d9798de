// The cost of one judge call (src/modules/judges/prices.ts): the built-in list prices, the
// model matching (exact, then the longest key followed by "-"), a workspace's price over the
// built-in one, rounding to 1e-9 USD, and no price → null (never a guess). Values computed by hand.
import { describe, expect, it } from "vitest";
import { BUILTIN_PRICES, costOf, priceOf, type Price } from "../../src/modules/judges/prices.js";

const none: ReadonlyMap<string, Price> = new Map();
const own = (entries: [string, number, number][]) => new Map(entries.map(([model, inputUsdPerMillion, outputUsdPerMillion]) => [model, { inputUsdPerMillion, outputUsdPerMillion }]));

describe("BUILTIN_PRICES", () => {
  it("holds the providers' list prices, USD per 1M tokens in and out", () => {
    expect(Object.fromEntries([...BUILTIN_PRICES].map(([m, p]) => [m, [p.inputUsdPerMillion, p.outputUsdPerMillion]]))).toEqual({
      "gpt-4o": [2.5, 10],
      "gpt-4o-mini": [0.15, 0.6],
      "gpt-4.1": [2, 8],
      "gpt-4.1-mini": [0.4, 1.6],
      "gpt-4.1-nano": [0.1, 0.4],
      "claude-3-5-haiku-latest": [0.8, 4],
      "claude-3-haiku-20240307": [0.25, 1.25],
      "claude-sonnet-4-0": [3, 15],
      "claude-3-7-sonnet-latest": [3, 15],
      "claude-opus-4-0": [15, 75],
      // The dated ids of the Anthropic aliases, at their alias's price.
      "claude-3-5-haiku-20241022": [0.8, 4],
      "claude-3-7-sonnet-20250219": [3, 15],
      "claude-sonnet-4-20250514": [3, 15],
      "claude-opus-4-20250514": [15, 75],
    });
    expect(Object.isFrozen(BUILTIN_PRICES.get("gpt-4o"))).toBe(true);
  });
});

describe("costOf", () => {
  it("prices an exact built-in name: in/1e6 × input price + out/1e6 × output price", () => {
    // gpt-4o-mini: 1234/1e6 × 0.15 + 567/1e6 × 0.60 = 0.0001851 + 0.0003402 = 0.0005253
    expect(costOf("gpt-4o-mini", { inputTokens: 1234, outputTokens: 567 }, none)).toEqual({ costUsd: 0.0005253, priceSource: "builtin" });
    // claude-opus-4-0: 200,000 × 15/1e6 + 100,000 × 75/1e6 = 3 + 7.5
    expect(costOf("claude-opus-4-0", { inputTokens: 200_000, outputTokens: 100_000 }, none)).toEqual({ costUsd: 10.5, priceSource: "builtin" });
    // claude-3-haiku-20240307: 4,000 × 0.25/1e6 + 300 × 1.25/1e6 = 0.001 + 0.000375
    expect(costOf("claude-3-haiku-20240307", { inputTokens: 4000, outputTokens: 300 }, none)).toEqual({ costUsd: 0.001375, priceSource: "builtin" });
    expect(costOf("gpt-4o", { inputTokens: 0, outputTokens: 0 }, none)).toEqual({ costUsd: 0, priceSource: "builtin" });
  });

  it("prices a dated name by the longest key it starts with followed by '-'", () => {
    // gpt-4o-mini-2024-07-18 → gpt-4o-mini (not gpt-4o): 1,000,000 × 0.15/1e6 + 1,000,000 × 0.60/1e6
    expect(costOf("gpt-4o-mini-2024-07-18", { inputTokens: 1_000_000, outputTokens: 1_000_000 }, none)).toEqual({ costUsd: 0.75, priceSource: "builtin" });
    // gpt-4o-2024-08-06 → gpt-4o: 2,000 × 2.5/1e6 + 500 × 10/1e6 = 0.005 + 0.005
    expect(costOf("gpt-4o-2024-08-06", { inputTokens: 2000, outputTokens: 500 }, none)).toEqual({ costUsd: 0.01, priceSource: "builtin" });
    // gpt-4.1-mini-2025-04-14 → gpt-4.1-mini (not gpt-4.1): 10,000 × 0.40/1e6 + 2,000 × 1.60/1e6 = 0.004 + 0.0032
    expect(costOf("gpt-4.1-mini-2025-04-14", { inputTokens: 10_000, outputTokens: 2000 }, none)).toEqual({ costUsd: 0.0072, priceSource: "builtin" });
    expect(priceOf("gpt-4.1-nano-2025-04-14", none)).toMatchObject({ key: "gpt-4.1-nano", source: "builtin" });
    // Anthropic reports claude-sonnet-4-0 as claude-sonnet-4-20250514: 1,000 × 3/1e6 + 1,000 × 15/1e6 = 0.003 + 0.015
    expect(costOf("claude-sonnet-4-20250514", { inputTokens: 1000, outputTokens: 1000 }, none)).toEqual({ costUsd: 0.018, priceSource: "builtin" });
    // Only a whole key followed by "-": gpt-4o-minix is no gpt-4o-mini, but it is gpt-4o followed by "-minix".
    expect(priceOf("gpt-4o-minix", none)).toMatchObject({ key: "gpt-4o", source: "builtin" });
    expect(priceOf("gpt-4o-", none)).toBeNull();
  });

  it("takes a workspace's price over the built-in one", () => {
    const overrides = own([["gpt-4o-mini", 1, 2]]);
    // 1234 × 1/1e6 + 567 × 2/1e6 = 0.001234 + 0.001134
    expect(costOf("gpt-4o-mini", { inputTokens: 1234, outputTokens: 567 }, overrides)).toEqual({ costUsd: 0.002368, priceSource: "workspace" });
    // Its dated names too (the same key, the workspace's row).
    expect(costOf("gpt-4o-mini-2024-07-18", { inputTokens: 1234, outputTokens: 567 }, overrides)).toEqual({ costUsd: 0.002368, priceSource: "workspace" });
    // A workspace row for the dated name itself is an exact match over the built-in prefix.
    expect(costOf("gpt-4o-2024-08-06", { inputTokens: 1_000_000, outputTokens: 0 }, own([["gpt-4o-2024-08-06", 1.25, 5]]))).toEqual({ costUsd: 1.25, priceSource: "workspace" });
    // A workspace model the table lacks, and its dated names.
    const local = own([["llama3.2", 0, 0], ["mistral-large", 2, 6]]);
    expect(costOf("llama3.2", { inputTokens: 5000, outputTokens: 5000 }, local)).toEqual({ costUsd: 0, priceSource: "workspace" });
    // 500 × 2/1e6 + 100 × 6/1e6 = 0.001 + 0.0006
    expect(costOf("mistral-large-2411", { inputTokens: 500, outputTokens: 100 }, local)).toEqual({ costUsd: 0.0016, priceSource: "workspace" });
  });

  it("matches the longest key across both tables: a workspace's shorter key does not take a built-in longer one's names", () => {
    // The workspace prices gpt-4o; gpt-4o-mini-2024-07-18 is still gpt-4o-mini's (built-in): 1,000,000 × 0.15/1e6.
    expect(costOf("gpt-4o-mini-2024-07-18", { inputTokens: 1_000_000, outputTokens: 0 }, own([["gpt-4o", 9, 9]]))).toEqual({ costUsd: 0.15, priceSource: "builtin" });
    // The workspace's longer key wins over the built-in shorter one: gpt-4o-mini-2024 (workspace) for gpt-4o-mini-2024-07-18.
    expect(priceOf("gpt-4o-mini-2024-07-18", own([["gpt-4o-mini-2024", 0.1, 0.1]]))).toMatchObject({ key: "gpt-4o-mini-2024", source: "workspace" });
  });

  it("answers null for a model without a price: never a guess", () => {
    for (const model of ["llama3.2", "GPT-4o-mini", "gpt-4omini", "gpt-4", "claude-3-5-haiku", "claude-sonnet-4", "o3-mini", "", "__proto__", "constructor"]) {
      expect(costOf(model, { inputTokens: 1234, outputTokens: 567 }, none), model).toEqual({ costUsd: null, priceSource: null });
    }
    // A workspace row of another model changes nothing.
    expect(costOf("llama3.2", { inputTokens: 1, outputTokens: 1 }, own([["llama3.1", 1, 1]]))).toEqual({ costUsd: null, priceSource: null });
  });

  it("rounds to the nearest 1e-9 USD", () => {
    // 1234 × 0.0004/1e6 = 4.936e-7 → 4.94e-7
    expect(costOf("cheap", { inputTokens: 1234, outputTokens: 0 }, own([["cheap", 0.0004, 0]]))).toEqual({ costUsd: 4.94e-7, priceSource: "workspace" });
    // 1 × 0.0001/1e6 = 1e-10 → 0
    expect(costOf("cheap", { inputTokens: 1, outputTokens: 0 }, own([["cheap", 0.0001, 0]])).costUsd).toBe(0);
    // gpt-4o-mini, 1 in and 1 out: 1.5e-7 + 6e-7
    expect(costOf("gpt-4o-mini", { inputTokens: 1, outputTokens: 1 }, none).costUsd).toBe(7.5e-7);
    // 0.1 + 0.2 in floating point is 0.30000000000000004: gpt-4.1-nano at 1,000,000 in (0.1) and 500,000 out (0.2).
    expect(costOf("gpt-4.1-nano", { inputTokens: 1_000_000, outputTokens: 500_000 }, none).costUsd).toBe(0.3);
  });

  it("refuses token counts that are not finite numbers ≥ 0", () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, undefined as unknown as number]) {
      expect(() => costOf("gpt-4o", { inputTokens: bad, outputTokens: 0 }, none)).toThrow(RangeError);
      expect(() => costOf("gpt-4o", { inputTokens: 0, outputTokens: bad }, none)).toThrow(/usage\.outputTokens must be a finite number/);
    }
  });
});
