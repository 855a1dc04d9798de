// A judge's output definition (src/modules/judges/output-definition.ts): the JSON schema the
// provider is asked to answer with, and the check of its answer (never a guessed score).
import { describe, expect, it } from "vitest";
import { answerSchemaOf, outputDefinitionSchema, scoresOfAnswer, type OutputDefinition } from "../../src/modules/judges/output-definition.js";

const DEFINITION: OutputDefinition = [
  { name: "faithful", type: "boolean", higherIsBetter: true },
  { name: "helpfulness", type: "numeric", min: 1, max: 5, higherIsBetter: true, description: "1 useless, 5 excellent" },
  { name: "tone", type: "categorical", values: ["polite", "neutral", "rude"] },
];

const issuesOf = (input: unknown) => {
  const parsed = outputDefinitionSchema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join("."), i.message]);
};

describe("judge output definitions", () => {
  it("gives the strict JSON schema of the answer: reasoning first, one required key per score, nothing else", () => {
    expect(answerSchemaOf(DEFINITION)).toStrictEqual({
      type: "object",
      properties: {
        reasoning: { type: "string", description: "Why the scores are what they are, briefly." },
        faithful: { type: "boolean" },
        helpfulness: { type: "number", minimum: 1, maximum: 5, description: "1 useless, 5 excellent" },
        tone: { type: "string", enum: ["polite", "neutral", "rude"] },
      },
      required: ["reasoning", "faithful", "helpfulness", "tone"],
      additionalProperties: false,
    });
  });

  it("refuses a definition that leaves a type's rule open, naming the field", () => {
    expect(issuesOf(DEFINITION)).toEqual([]);
    expect(issuesOf([])).toEqual([["", "must define at least one score"]]);
    expect(issuesOf([{ name: "n", type: "numeric", higherIsBetter: true }])).toEqual([["0.min", "a numeric score needs min"], ["0.max", "a numeric score needs max"]]);
    expect(issuesOf([{ name: "n", type: "numeric", min: 5, max: 1, higherIsBetter: false }])).toEqual([["0.min", "must be below max"]]);
    expect(issuesOf([{ name: "b", type: "boolean" }])).toEqual([["0.higherIsBetter", "a boolean score needs a direction: true when higher is better"]]);
    expect(issuesOf([{ name: "c", type: "categorical", values: ["a"], higherIsBetter: true }])).toEqual([["0.values", "a categorical score needs at least 2 values"], ["0.higherIsBetter", "a categorical score has no direction"]]);
    expect(issuesOf([{ name: "c", type: "categorical", values: ["a", "a"] }])).toEqual([["0.values", "must not repeat a value"]]);
    expect(issuesOf([{ name: "b", type: "boolean", higherIsBetter: true, values: ["x", "y"] }])).toEqual([["0.values", "is for categorical scores only (this one is boolean)"]]);
    expect(issuesOf([{ name: "reasoning", type: "boolean", higherIsBetter: true }])).toEqual([["0.name", '"reasoning" is the answer\'s reasoning: give the score another name']]);
    expect(issuesOf([{ name: "b", type: "boolean", higherIsBetter: true }, { name: "b", type: "boolean", higherIsBetter: false }])).toEqual([["1.name", '"b" is defined twice']]);
    expect(issuesOf([{ name: "b", type: "boolean", higherIsBetter: true, weight: 2 }])[0]![1]).toMatch(/weight/);
  });

  it("reads a valid answer into scores with the reasoning as comment, as text or as a tool call's object", () => {
    const answer = { reasoning: "Grounded in the context; polite.", faithful: true, helpfulness: 4, tone: "polite" };
    const expected = [
      { name: "faithful", value: true, data_type: "BOOLEAN", higher_is_better: true, comment: "Grounded in the context; polite.", metadata: null },
      { name: "helpfulness", value: 4, data_type: "NUMERIC", higher_is_better: true, comment: "Grounded in the context; polite.", metadata: null },
      { name: "tone", value: "polite", data_type: "CATEGORICAL", higher_is_better: true, comment: "Grounded in the context; polite.", metadata: null },
    ];
    expect(scoresOfAnswer(DEFINITION, JSON.stringify(answer))).toStrictEqual({ ok: true, scores: expected });
    expect(scoresOfAnswer(DEFINITION, answer)).toStrictEqual({ ok: true, scores: expected });
  });

  it("never guesses: each way an answer can miss is invalid, with the reason", () => {
    const base = { reasoning: "r", faithful: true, helpfulness: 4, tone: "polite" };
    const reason = (answer: unknown) => {
      const r = scoresOfAnswer(DEFINITION, answer);
      return r.ok ? "ok" : r.message;
    };
    expect(reason("Sure! Here are the scores: {")).toBe('the judge\'s answer is not JSON (starts with "Sure! Here are the scores: {")');
    expect(reason("```json\n{}\n```")).toMatch(/^the judge's answer is not JSON/);
    expect(reason("[1, 2]")).toBe("the judge's answer must be a JSON object of its scores and reasoning");
    expect(reason({ ...base, confidence: 0.9 })).toBe('the judge\'s answer has a key its output definition does not: "confidence"');
    expect(reason({ faithful: true, helpfulness: 4, tone: "polite" })).toBe('the judge\'s answer needs "reasoning" as a string');
    expect(reason({ reasoning: "r", faithful: true, tone: "polite" })).toBe('the judge\'s answer has no score "helpfulness"');
    expect(reason({ ...base, faithful: "true" })).toBe('the judge\'s score "faithful" must be true or false, got "true"');
    expect(reason({ ...base, helpfulness: 6 })).toBe('the judge\'s score "helpfulness" must be between 1 and 5, got 6');
    expect(reason({ ...base, helpfulness: "4" })).toBe('the judge\'s score "helpfulness" must be a number, got "4"');
    expect(reason({ ...base, tone: "Polite" })).toBe('the judge\'s score "tone" must be one of "polite", "neutral", "rude", got "Polite"');
    expect(reason({ ...base, tone: null })).toBe('the judge\'s score "tone" must be one of "polite", "neutral", "rude", got null');
    expect(reason({ ...base, reasoning: "x".repeat(10_001) })).toBe('the judge\'s "reasoning" must be at most 10000 characters (got 10001)');
  });
});
