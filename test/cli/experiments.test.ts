import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliRunner, serviceForThisFile } from "./service.js";

// `oodle experiments compare` and `run --timeout` as a subprocess against the real service (API +
// worker, Postgres, Redis, sandbox), as users met them: a table whose CHANGED said 0 beside "N
// item(s) changed", and a timeout that exited 2 as if the flag were bad input.
const service = serviceForThisFile();

const T = 480_000;

/** Six items whose replies alternate between mentioning a refund and a return. */
function smallDataset(dir: string): string {
  const file = join(dir, "items.jsonl");
  const lines = Array.from({ length: 6 }, (_, i) => ({ id: `i${i + 1}`, input: `question ${i + 1}`, output: i % 2 === 0 ? "Sorry, please send a return." : "We will refund you." }));
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"));
  return file;
}

describe("oodle experiments", () => {
  it("compare: the sentence adds up the table's own columns, and says when --limit hides changes", { timeout: T }, async () => {
    const { key } = await service.workspace("cli-compare");
    const oodle = cliRunner(service, key);
    const dir = mkdtempSync(join(tmpdir(), "oodle-compare-"));
    expect((await oodle(["datasets", "import", "small", smallDataset(dir)])).exitCode).toBe(0);
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
    expect((await oodle(["genai", "evaluators", "create", "--name", "Mentions", "--template", "Keyword check", "--params", '{"required": ["refund"]}'])).exitCode).toBe(0);
    const base = await oodle(["experiments", "run", "--dataset", "small", "--evaluator", "Mentions", "--name", "refund"]);
    expect(base.exitCode, base.stderr).toBe(0);
    // The same evaluator asking for "return": every item flips, three to a pass and three to a fail.
    expect((await oodle(["genai", "evaluators", "update", "Mentions", "--params", '{"required": ["return"]}'])).exitCode).toBe(0);
    const candidate = await oodle(["experiments", "run", "--dataset", "small", "--evaluator", "Mentions", "--name", "return"]);
    expect(candidate.exitCode, candidate.stderr).toBe(0);

    const json = await oodle(["--json", "experiments", "compare", "refund", "return"]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ changedItems: 6, changeCount: 6, scores: [{ evaluatorName: "Mentions", name: "keywords_ok", improved: 3, regressed: 3, changed: 0 }] });

    const text = await oodle(["experiments", "compare", "refund", "return", "--limit", "2"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^EVALUATOR\s+SCORE\s+BASE MEAN\s+CAND\. MEAN\s+Δ MEAN\s+BASE PASS\s+CAND\. PASS\s+Δ PASS\s+IMPROVED\s+REGRESSED\s+NO DIRECTION$/m);
    expect(text.stdout).toMatch(/^Mentions\s+keywords_ok\s+0\.500\s+0\.500\s+\+0\.000\s+50\.0%\s+50\.0%\s+\+0\.0pp\s+3\s+3\s+0$/m);
    expect(text.stdout).toContain("6 item(s) changed: 6 score change(s) (3 improved, 3 regressed, 0 with no direction)\n");
    expect(text.stdout).toMatch(/^i1\s+Mentions\s+keywords_ok\s+improved\s+false\s+true\ni2\s+Mentions\s+keywords_ok\s+regressed\s+true\s+false$/m);
    expect(text.stdout.trim().split("\n").at(-1)).toBe("(the first 2 of 6 changes; a larger --limit lists more)");

    const same = await oodle(["experiments", "compare", "refund", "refund"]);
    expect(same.stdout).toMatch(/^no item changed$/m);
  });

  it("run --timeout: an experiment still waiting when the time is up exits 7 (WAIT_TIMEOUT), saying how to follow it", { timeout: T }, async () => {
    const { key } = await service.workspace("cli-timeout");
    const oodle = cliRunner(service, key);
    const dir = mkdtempSync(join(tmpdir(), "oodle-timeout-"));
    expect((await oodle(["datasets", "import", "small", smallDataset(dir)])).exitCode).toBe(0);
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
    // It runs after an external evaluator whose scores nobody posts: the experiment waits (7 days by default).
    expect((await oodle(["genai", "evaluators", "create", "--name", "Posted", "--kind", "external"])).exitCode).toBe(0);
    const after = await oodle(["genai", "evaluators", "create", "--name", "After posted", "--template", "Keyword check", "--params", '{"required": ["refund"]}', "--depends-on", "Posted"]);
    expect(after.exitCode, after.stderr).toBe(0);

    const run = await oodle(["--json", "experiments", "run", "--dataset", "small", "--evaluator", "After posted", "--name", "waits", "--timeout", "1"]);
    expect(run.exitCode, run.stderr).toBe(7);
    const error = JSON.parse(run.stderr).error;
    expect(error).toMatchObject({ code: "WAIT_TIMEOUT", field: "--timeout" });
    expect(error.message).toMatch(/^experiment "waits" is still (queued|running) after --timeout 1 s \(\d+\/\d+ runs, \d+ item\(s\) pending\); it goes on: oodle experiments get (\S+)$/);
    const id = /oodle experiments get (\S+)$/.exec(error.message)![1]!;
    // It goes on: the experiment is there, not cancelled.
    const got = await oodle(["--json", "experiments", "get", id]);
    expect(got.exitCode, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ name: "waits" });
    expect(["queued", "running"]).toContain(JSON.parse(got.stdout).status);

    const text = await oodle(["experiments", "run", "--dataset", "small", "--evaluator", "After posted", "--name", "waits again", "--timeout", "1"]);
    expect(text.exitCode).toBe(7);
    expect(text.stderr).toMatch(/^error \(WAIT_TIMEOUT\):\n {2}--timeout: experiment "waits again" is still (queued|running) after --timeout 1 s/m);

    const help = await oodle(["--help"]);
    expect(help.stdout).toMatch(/^ {2}7 {2}WAIT_TIMEOUT: /m);
  });
});
