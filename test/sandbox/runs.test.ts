import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor } from "../../src/execution/index.js";
import { item, keyFor, TEST_LIMITS, testExecutor } from "./helpers.js";

let executor: Executor;
beforeAll(() => {
  executor = testExecutor();
});
afterAll(() => executor.close());

const SCORING = `
from oodle_eval.v1 import text

def evaluate(ctx):
    print("reply is", text.reply(ctx))
    import sys
    print("warning", file=sys.stderr)
    return EvaluationResult(scores=[
        Score(name="length", value=len(text.reply(ctx)), higher_is_better=False),
        Score(name="says_four", value=text.reply(ctx) == "4", comment="compared"),
        Score(name="threshold", value=ctx.params.get("threshold")),
    ])
`;

// A marker that lives as long as the runner process: a standard-library module's attribute (warm
// mode puts builtins back and gives each item fresh module globals; sandbox/README.md).
const RUNNER_ID = `
import json, os

def evaluate(ctx):
    runner_id = json.__dict__.setdefault("_runner_id", os.urandom(4).hex())
    if ctx.params.get("spin"):
        while True:
            pass
    return EvaluationResult(scores=[Score(name="runner", value=runner_id)])
`;

describe("normal runs", () => {
  it.each(["warm", "strict"] as const)("returns scores and captures stdout and stderr (%s)", async (mode) => {
    const [result] = await executor.execute(keyFor(SCORING, { mode }), [item({ threshold: 0.5 })]);
    expect(result).toMatchObject({
      outcome: "ok",
      stdout: "reply is 4\n",
      stderr: "warning\n",
      scores: [
        { name: "length", value: 1, data_type: "NUMERIC", higher_is_better: false },
        { name: "says_four", value: true, data_type: "BOOLEAN", comment: "compared" },
        { name: "threshold", value: 0.5 },
      ],
    });
    expect(result!.durationMs).toBeGreaterThan(0);
  });

  it("reports the user's exception with their own lines only", async () => {
    const source = "import json\n\ndef helper(x):\n    return json.loads(x)\n\ndef evaluate(ctx):\n    return helper('{bad')\n";
    const [result] = await executor.execute(keyFor(source), [item()]);
    expect(result!.outcome).toBe("user_error");
    expect(result!.error!.type).toBe("JSONDecodeError");
    const tb = result!.error!.traceback;
    expect(tb).toContain('File "<evaluator>", line 7, in evaluate');
    expect(tb).toContain('File "<evaluator>", line 4, in helper');
    expect(tb).toContain("return json.loads(x)");
    expect(tb).not.toMatch(/\/usr\/lib|\/sandbox\/|\/work\/|runner\.py|json\/decoder/);
  });

  it("reports a syntax error at its line for every item", async () => {
    const results = await executor.execute(keyFor("def evaluate(ctx):\n    return (\n"), [item(), item()]);
    for (const r of results) {
      expect(r.outcome).toBe("user_error");
      expect(r.error!.message).toMatch(/syntax error/);
      expect(r.error!.traceback).toMatch(/line 2/);
    }
  });

  it("times an item out and keeps the same runner for the next items", async () => {
    const key = keyFor(RUNNER_ID, { templateVersionId: "runner-id" });
    // Small limits here, so the spin ends quickly (the other tests use generous ones).
    const tight = testExecutor(TEST_LIMITS);
    const results = await tight.execute(key, [item(), item({ spin: true }), item()]).finally(() => tight.close());
    expect(results.map((r) => r.outcome)).toEqual(["ok", "timeout"].concat("ok"));
    expect(results[1]!.error!.type).toBe("ItemTimeout");
    expect(results[2]!.scores[0]!.value).toBe(results[0]!.scores[0]!.value);
  });

  it("keeps a warm runner through ordinary use of the library, output, warnings and imports (nothing RunnerGuard calls tampering)", async () => {
    const source = `
import json, logging, os, sys, traceback, warnings
from oodle_eval.v1.checks import grounding, readability
from shared import util

def evaluate(ctx):
    runner_id = json.__dict__.setdefault("_runner_id", os.urandom(4).hex())
    syllables = readability.word_syllables("banana")[0]
    dropped = len(grounding.stopwords())
    warnings.warn("a warning")
    logging.getLogger("x").warning("logged")
    try:
        raise ValueError("caught")
    except ValueError:
        text = traceback.format_exc()
    print("out", util.VALUE, end="")
    sys.stdout.flush()
    sys.stderr.write("err")
    import oodle_eval.v1.combine, oodle_eval.v1.text, statistics
    from opik.evaluation.metrics import Equals, base_metric

    class Mine(base_metric.BaseMetric):
        def score(self, output, **ignored):
            return Equals().score(output=output, reference="4")

    equal = Mine().score(output=ctx.output).value
    return EvaluationResult(scores=[Score(name="runner", value=runner_id), Score(name="seen", value=syllables + (dropped > 100) + ("caught" in text) + equal)])
`;
    const key = keyFor(source, { templateVersionId: "guard-ordinary", libraries: { util: { version: 1, source: "VALUE = 'v'\n" } } });
    const results = await executor.execute(key, [item(), item(), item()]);
    expect(results.map((r) => [r.outcome, r.error?.message ?? null, r.scores[1]?.value, r.stdout])).toEqual(Array(3).fill(["ok", null, 6, "out v"]));
    // One runner served all three: none retired.
    expect(new Set(results.map((r) => r.scores[0]!.value)).size).toBe(1);
  });

  it.each(["walk", "library"])("keeps the result of an item that walked gc's objects or changed a library module, and retires the warm runner (%s)", async (how) => {
    const source = `
import gc, json, os
import oodle_eval.v1.text as text

def evaluate(ctx):
    runner_id = json.__dict__.setdefault("_runner_id", os.urandom(4).hex())
    if ctx.params.get("how") == "walk":
        gc.get_referents(ctx)
    elif ctx.params.get("how") == "library":
        vars(text)["planted"] = 1
    return EvaluationResult(scores=[Score(name="runner", value=runner_id), Score(name="planted", value=hasattr(text, "planted"))])
`;
    const key = keyFor(source, { templateVersionId: `guard-mild-${how}` });
    const [first, second] = await executor.execute(key, [item({ how }), item()]);
    // Its own result stands (a library module can forge scores only, never an outcome) ...
    expect([first!.outcome, first!.scores[1]!.value]).toEqual(["ok", how === "library"]);
    // ... and the next item runs on a fresh runner, which has nothing of it.
    expect([second!.outcome, second!.scores[1]!.value]).toEqual(["ok", false]);
    expect(second!.scores[0]!.value).not.toBe(first!.scores[0]!.value);
  });

  it("replaces a runner that dies and runs the remaining items", async () => {
    const source = "import os\n\ndef evaluate(ctx):\n    if ctx.params.get('die'):\n        os._exit(3)\n    return EvaluationResult(scores=[Score(name='ok', value=True)])\n";
    const results = await executor.execute(keyFor(source), [item(), item({ die: true }), item(), item()]);
    expect(results.map((r) => r.outcome)).toEqual(["ok", "user_error", "ok", "ok"]);
    expect(results[1]!.error!.message).toMatch(/exit code 3/);
  });

  it("strict mode runs every item in a fresh process", async () => {
    const key = keyFor(RUNNER_ID, { templateVersionId: "runner-id", mode: "strict" });
    const results = await executor.execute(key, [item(), item()]);
    expect(results.map((r) => r.outcome)).toEqual(["ok", "ok"]);
    expect(results[0]!.scores[0]!.value).not.toBe(results[1]!.scores[0]!.value);
  });

  it("serves shared libraries, including one importing another, and names a missing one", async () => {
    const libraries = {
      base: { version: 2, source: "FACTOR = 10\n" },
      scale: { version: 1, source: "from shared.base import FACTOR\n\ndef scale(x):\n    return x * FACTOR\n" },
    };
    const source = "from shared.scale import scale\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='v', value=scale(4))])\n";
    const [ok] = await executor.execute(keyFor(source, { libraries }), [item()]);
    expect(ok!.scores[0]!.value).toBe(40);
    const missing = "def evaluate(ctx):\n    import shared.nope\n";
    const [error] = await executor.execute(keyFor(missing, { libraries }), [item()]);
    expect(error!.error).toMatchObject({ type: "ImportError", message: expect.stringMatching(/'nope' is not available/) });
  });

  it("refuses a cycle between shared libraries, naming it", async () => {
    const libraries = {
      a: { version: 1, source: "import shared.b\n" },
      b: { version: 1, source: "import shared.a\n" },
    };
    const [result] = await executor.execute(keyFor("def evaluate(ctx):\n    import shared.a\n", { libraries }), [item()]);
    expect(result!.error).toMatchObject({ type: "ImportError", message: expect.stringMatching(/'a' is part of an import cycle: a -> b -> a/) });
  });

  it("runs Open Chat Studio's main() entry point", async () => {
    const source = "def main(input, output, context, full_history, generated_response, **kwargs):\n    return {'echo': generated_response}\n";
    const [result] = await executor.execute(keyFor(source), [item()]);
    expect(result).toMatchObject({ outcome: "ok", scores: [{ name: "echo", value: "4", data_type: "CATEGORICAL" }] });
  });

  it("runs an Opik metric and says in stderr why a result was dropped", async () => {
    const source = [
      "from opik.evaluation.metrics import base_metric, score_result",
      "",
      "class Mine(base_metric.BaseMetric):",
      "    def score(self, output, **ignored):",
      "        return [",
      '            score_result.ScoreResult(name="short", value=float(len(output) < 5)),',
      '            score_result.ScoreResult(name="judge", value=0.0, scoring_failed=True, reason="model timed out"),',
      "        ]",
      "",
    ].join("\n");
    const [result] = await executor.execute(keyFor(source), [item()]);
    expect(result!.outcome).toBe("ok");
    expect(result!.scores.map((s) => [s.name, s.value])).toEqual([["short", 1]]);
    expect(result!.stderr).toBe("oodle_eval: dropped Opik result 'judge': scoring failed: model timed out\n");
  });

  it("runs many items, spread over runners, in order", async () => {
    const source = "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='i', value=ctx.params['i'])])\n";
    const results = await executor.execute(keyFor(source, { templateVersionId: "many" }), Array.from({ length: 500 }, (_, i) => item({ i })));
    expect(results.map((r) => r.scores[0]?.value)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });
});
