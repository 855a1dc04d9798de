// Code checks on save (docs/sandbox.md § Checked on save): parsed by the sandbox's Python with `ast`, never run; at most
// 256 KiB; an entry point of the right shape (docs/sandbox.md § Entry points).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issuesOf, templatesHarness } from "./helpers.js";

const h = templatesHarness();
afterAll(() => h.app.close());
let ws: Awaited<ReturnType<typeof h.workspace>>;
beforeAll(async () => {
  ws = await h.workspace("code-checks");
});

let counter = 0;
async function save(sourceCode: string) {
  counter += 1;
  return ws.createTemplate({ name: `code ${counter}`, sourceCode });
}

async function refusedWith(sourceCode: string, message: string | RegExp) {
  const { error } = await save(sourceCode);
  expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
  const issues = issuesOf(error);
  expect(issues).toHaveLength(1);
  expect(issues[0]!.path).toBe("sourceCode");
  if (typeof message === "string") expect(issues[0]!.message).toBe(message);
  else expect(issues[0]!.message).toMatch(message);
}

describe("code checks on save", () => {
  it("accepts evaluate(ctx) and records the entry point, the author and empty pins", async () => {
    const { template, error } = await save("def evaluate(ctx):\n    return EvaluationResult(scores=[])\n");
    expect(error).toBeUndefined();
    expect(template.latestVersion).toMatchObject({ version: 1, entryPoint: { kind: "evaluate", name: "evaluate" }, libraryPins: {}, author: { name: "first key" } });
  });

  it("a syntax error is BAD_USER_INPUT with its line and column", async () => {
    await refusedWith("def evaluate(ctx):\n    return (1,\n", /^syntax error: .* \(line 2, column 12\)$/);
    await refusedWith("def evaluate(ctx)\n    pass\n", /^syntax error: expected ':' \(line 1, column 18\)$/);
  });

  it("the code is parsed, never run", async () => {
    // Running this would raise at import time; parsing it is fine.
    const { error } = await save('raise SystemExit("ran")\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[])\n');
    expect(error).toBeUndefined();
  });

  it("evaluate must take exactly one parameter", async () => {
    await refusedWith("def evaluate(ctx, extra):\n    pass\n", /^evaluate must take exactly one parameter, the context: def evaluate\(ctx\) \(got evaluate\(ctx, extra\)\) \(line 1, column 1\)$/);
  });

  it("no entry point says what is expected", async () => {
    await refusedWith("x = 1\n", /^no entry point: define evaluate\(ctx\) returning EvaluationResult, or Open Chat Studio's main\(input, output, context, full_history, generated_response, \*\*kwargs\)/);
  });

  it("accepts Open Chat Studio's main with exactly its parameters", async () => {
    const source = "def main(input: dict, output: dict, context: dict, full_history: str, generated_response: str, **kwargs) -> dict:\n    return {}\n";
    const { template, error } = await save(source);
    expect(error).toBeUndefined();
    expect(template.latestVersion.entryPoint).toEqual({ kind: "main", name: "main" });
  });

  it("refuses a main of the wrong shape, saying what was expected", async () => {
    await refusedWith(
      "def main(input, output, context, full_history, generated_response, participant_data, **kwargs):\n    return {}\n",
      /^main must have the signature main\(input, output, context, full_history, generated_response, \*\*kwargs\) only/,
    );
    await refusedWith(
      "def main(input, output, context, full_history, generated_response):\n    return {}\n",
      /add \*\*kwargs/,
    );
  });

  it("accepts an Opik BaseMetric subclass", async () => {
    const source = [
      "from opik.evaluation.metrics import base_metric, score_result",
      "",
      "class SupportReply(base_metric.BaseMetric):",
      '    def __init__(self, name="support_reply"):',
      "        super().__init__(name=name)",
      "",
      "    def score(self, output, **ignored_kwargs):",
      '        return score_result.ScoreResult(name="x", value=1.0)',
      "",
    ].join("\n");
    const { template, error } = await save(source);
    expect(error).toBeUndefined();
    expect(template.latestVersion.entryPoint).toEqual({ kind: "opik", name: "SupportReply" });
  });

  it("at most 256 KiB of source", async () => {
    const body = "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n";
    const padding = "#".repeat(256 * 1024 - body.length - 1) + "\n";
    const { error } = await save(padding + body);
    expect(error).toBeUndefined();
    await refusedWith(padding + "#\n" + body, `must be at most 256 KiB (262144 bytes of UTF-8); got ${256 * 1024 + 2} bytes`);
  });

  // These once crashed the host-side inspector (RecursionError, MemoryError) and came
  // back as a masked 500; each is the user's input, too deep or too large, and saved nothing.
  it.each([
    ["1+1+… (100,000 terms)", `x = ${"1+".repeat(100_000)}1`, /nested too deeply|too large/],
    ["not not … (60,000 times)", `x = ${"not ".repeat(60_000)}1`, /too large|nested too deeply/],
    ["f()()… (100,000 calls)", `x = f${"()".repeat(100_000)}`, /nested too deeply|too large/],
  ])("a source too deep or too large to parse is BAD_USER_INPUT: %s", async (_name, line, message) => {
    await refusedWith(`${line}\ndef evaluate(ctx):\n    return EvaluationResult(scores=[])\n`, message);
  });

  it("eight hostile saves at once all get their answer (the inspector runs a few at a time)", async () => {
    const deep = `x = ${"1+".repeat(100_000)}1\ndef evaluate(ctx):\n    return EvaluationResult(scores=[])\n`;
    const results = await Promise.all(Array.from({ length: 8 }, () => save(deep)));
    expect(results.map((r) => r.error?.extensions?.code)).toEqual(Array(8).fill("BAD_USER_INPUT"));
  });

  it("blank source is refused", async () => {
    await refusedWith("  \n", "must not be empty: define evaluate(ctx)");
  });
});
