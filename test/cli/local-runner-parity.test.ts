import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { cliRunner, ROOT, serviceForThisFile } from "./service.js";

// The local runner (`python -m oodle_eval run --span LINE`) and the service's tryCode
// (`oodle genai try FILE --document LINE`) build the same sample document from a line of
// items.jsonl, so the same code gives the same scores (the trial's finding: locally
// trajectory_match was True on tau-bench-airline, False on the server).
const service = serviceForThisFile();

const T = 240_000;
const TAU = join(ROOT, "..", "shared", "data", "tau-bench-airline", "items.jsonl");
/** Debian's Python: the one the sandbox runs. */
const PYTHON = "/usr/bin/python3";

const EVALUATOR = `import json
from oodle_eval.v1 import metrics

def evaluate(ctx):
    # Short (a CATEGORICAL value holds at most 1,000 characters): key names and tool names only.
    seen = {"attributes": sorted(ctx.attributes), "metadata": sorted(ctx.metadata), "spans": [[s.name, s.kind] for s in ctx.trace.spans],
            "args": [sorted(s.input) for s in ctx.trace.spans if isinstance(s.input, dict)]}
    return EvaluationResult(scores=[*metrics.tool_trajectory(ctx, expected=ctx.metadata["expected_tool_calls"]),
                                    Score(name="seen", value=json.dumps(seen, sort_keys=True))])
`;

function localRun(args: string[]) {
  const env = { PYTHONPATH: join(ROOT, "python-lib"), PATH: process.env.PATH ?? "" };
  return execa(PYTHON, ["-m", "oodle_eval", "run", ...args], { env, extendEnv: false, reject: false });
}

describe.skipIf(!existsSync(TAU))("local runner and tryCode on an items.jsonl line", () => {
  it("give the same scores on tau-bench-airline lines, and both refuse an unknown key", { timeout: T }, async () => {
    const { key } = await service.workspace("local-parity");
    const oodle = cliRunner(service, key);
    const dir = mkdtempSync(join(tmpdir(), "oodle-parity-"));
    const evaluator = join(dir, "evaluate.py");
    writeFileSync(evaluator, EVALUATOR);
    const lines = readFileSync(TAU, "utf8").split("\n").filter(Boolean).slice(0, 3);
    const values: unknown[] = [];
    for (const [i, line] of lines.entries()) {
      const file = join(dir, `tau_${i}.json`);
      writeFileSync(file, line);
      const served = await oodle(["--json", "genai", "try", evaluator, "--document", file]);
      expect(served.exitCode, served.stderr + served.stdout).toBe(0);
      const serviceScores = (JSON.parse(served.stdout).scores as { name: string; value: unknown }[]).map((s) => [s.name, s.value]);
      const local = await localRun([evaluator, "--span", file, "--json"]);
      expect(local.exitCode, local.stderr).toBe(0);
      const localScores = (JSON.parse(local.stdout) as { name: string; value: unknown }[]).map((s) => [s.name, s.value]);
      expect(localScores).toEqual(serviceScores);
      values.push(serviceScores[0]![1]);
      // The mapping reached the code: expected_tool_calls in metadata, the context (if any) as an attribute, one tool span per call.
      const seen = JSON.parse(serviceScores[1]![1] as string);
      expect(seen.metadata).toContain("expected_tool_calls");
      const item = JSON.parse(line);
      expect(seen.attributes).toEqual(item.context === null || item.context === undefined ? [] : ["context"]);
      expect(seen.spans).toEqual((item.tool_calls ?? []).map((c: { name: string }) => [c.name, "tool"]));
    }
    expect(values[1]).toBe(false); // line 2: the agent stopped before cancel_reservation

    const typo = join(dir, "typo.json");
    writeFileSync(typo, JSON.stringify({ id: "x", output: "hi", expected_outptu: "x" }));
    const served = await oodle(["genai", "try", evaluator, "--document", typo]);
    expect(served.exitCode).not.toBe(0);
    expect(served.stderr).toContain("expected_outptu");
    const local = await localRun([evaluator, "--span", typo]);
    expect(local.exitCode).toBe(2);
    expect(local.stderr).toContain("unknown key(s) expected_outptu");
  });
});
