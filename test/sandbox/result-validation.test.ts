import { describe, expect, it } from "vitest";
import { validateScores } from "../../src/execution/result-validation.js";

const score = (over: Record<string, unknown> = {}) => ({
  name: "s",
  value: 1,
  data_type: "NUMERIC",
  higher_is_better: true,
  comment: null,
  metadata: null,
  ...over,
});

describe("validateScores", () => {
  it("accepts valid scores of every type, and no value", () => {
    const result = validateScores([
      score(),
      score({ name: "b", value: true, data_type: "BOOLEAN" }),
      score({ name: "c", value: "good", data_type: "CATEGORICAL", comment: "why", metadata: { a: [1] } }),
      score({ name: "n", value: null }),
    ]);
    expect(result.ok).toBe(true);
  });

  it.each([
    ["an empty name", [score({ name: "" })], /empty/],
    ["a 101-character name", [score({ name: "x".repeat(101) })], /at most 100/],
    ["a name with a newline", [score({ name: "a\nb" })], /newline/],
    ["a value that does not fit its type", [score({ value: "1" })], /does not fit data_type NUMERIC/],
    ["a number as BOOLEAN", [score({ value: 1, data_type: "BOOLEAN" })], /BOOLEAN/],
    ["Infinity", [score({ value: Infinity })], /value/],
    ["NaN", [score({ value: NaN })], /value/],
    ["a duplicate name", [score(), score()], /appears twice/],
    ["101 scores", Array.from({ length: 101 }, (_, i) => score({ name: `s${i}` })), /at most 100 scores/],
    ["a huge comment", [score({ comment: "c".repeat(10_001) })], /comment/],
    ["huge metadata", [score({ metadata: { x: "m".repeat(20_000) } })], /metadata/],
    ["an unknown data type", [score({ data_type: "TEXT" })], /data_type/],
    ["an extra field", [score({ extra: 1 })], /extra|Unrecognized/],
    ["not a list", { s: 1 }, /array|expected/i],
  ])("refuses %s", (_name, scores, message) => {
    const result = validateScores(scores);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it.each([
    ["an object", { ratio: 0.5 }, "got an object"],
    ["an array", [0.5], "got an array"],
    ["NaN", NaN, "got NaN"],
    ["Infinity", -Infinity, "got -Infinity"],
  ])("says what a value must be and what %s is", (_name, value, got) => {
    const result = validateScores([score({ name: "ratio", value })]);
    expect(result.ok ? "" : result.message).toBe(`score "ratio" value: must be a boolean, a finite number, a string or null, ${got}`);
  });

  it("keeps an integer beyond 2**53 that a double holds (what the runner sends for 2**60)", () => {
    const result = validateScores(JSON.parse(`[{"name": "big", "value": 1152921504606846976, "data_type": "NUMERIC", "higher_is_better": true, "comment": null, "metadata": null}]`));
    expect(result.ok && result.scores[0]!.value).toBe(2 ** 60);
  });

  it("names the score at fault", () => {
    const result = validateScores([score({ name: "ratio", value: "x" })]);
    expect(result.ok ? "" : result.message).toMatch(/^score "ratio"/);
  });
});

describe("validateScores on hostile nesting", () => {
  const nested = (levels: number) => {
    const root: Record<string, unknown> = {};
    let node = root;
    for (let i = 0; i < levels; i++) {
      const next: Record<string, unknown> = {};
      node.a = next;
      node = next;
    }
    return root;
  };

  it("refuses metadata nested 20,000 levels deep without throwing (JSON.stringify alone throws RangeError)", () => {
    const deep = nested(20_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(validateScores([score({ metadata: deep })])).toEqual({ ok: false, message: 'score "s" metadata: metadata must nest at most 64 levels deep' });
  });

  it("accepts 64 levels (the dict itself is the first) and refuses 65, arrays counted too", () => {
    expect(validateScores([score({ metadata: nested(63) })]).ok).toBe(true);
    expect(validateScores([score({ metadata: nested(64) })]).ok).toBe(false);
    let list: unknown = [];
    for (let i = 0; i < 70; i++) list = [list];
    expect(validateScores([score({ metadata: { list } })]).ok).toBe(false);
  });
});
