import { afterAll, describe, expect, it } from "vitest";
import type { Executor } from "../../src/execution/index.js";
import { item, keyFor, TEST_LIMITS, testExecutor } from "./helpers.js";

// Long runs keep a second batch queued behind the one in flight (src/execution/index.ts); these
// check that a death, a timeout or a retirement in the middle of such a run still gives every item
// its own outcome, in order.
const executors: Executor[] = [];
afterAll(() => Promise.all(executors.map((e) => e.close())));

function executor(limits = TEST_LIMITS): Executor {
  const created = testExecutor(limits);
  executors.push(created);
  return created;
}

// A standard-library module's attributes outlive items in a warm runner (builtins and module
// globals do not: sandbox/README.md, "What warm mode resets"): a marker of the runner process.
const SOURCE = `
import json, os

def evaluate(ctx):
    runner_id = json.__dict__.setdefault("_runner_id", os.urandom(4).hex())
    if ctx.params.get("die"):
        os._exit(3)
    if ctx.params.get("spin"):
        while True:
            pass
    if ctx.params.get("burn"):
        n = 0
        for _ in range(ctx.params["burn"]):
            n += 1
    return EvaluationResult(scores=[Score(name="i", value=ctx.params["i"]), Score(name="runner", value=runner_id)])
`;

const N = 3_000;

describe("pipelined batches", () => {
  it("gives the item that kills its runner its outcome and every other item its scores", async () => {
    const results = await executor().execute(
      keyFor(SOURCE, { templateVersionId: "pipe-die" }),
      Array.from({ length: N }, (_, i) => item({ i, die: i === 1_500 })),
    );
    expect(results[1_500]!.outcome).toBe("user_error");
    expect(results[1_500]!.error!.message).toMatch(/exit code 3/);
    results.splice(1_500, 1);
    expect(results.every((r) => r.outcome === "ok")).toBe(true);
    expect(results.map((r) => r.scores[0]!.value)).toEqual(Array.from({ length: N }, (_, i) => i).filter((i) => i !== 1_500));
  });

  it("times out only the item that spins, on the same runner", async () => {
    const results = await executor().execute(
      keyFor(SOURCE, { templateVersionId: "pipe-spin" }),
      Array.from({ length: N }, (_, i) => item({ i, spin: i === 2_000 })),
    );
    expect(results[2_000]!.outcome).toBe("timeout");
    expect(results.filter((r) => r.outcome !== "ok")).toHaveLength(1);
  });

  it("moves the rest of the run to a fresh runner when one retires", async () => {
    // A runner retires before an item that could take it past its lifetime CPU: with 2 s per
    // runner and 0.5 s per item, a runner retires once it has used 0.5 s, so the items that burn
    // CPU make runners retire several times during the run.
    const results = await executor({ ...TEST_LIMITS, cpuTimeMs: 500, runnerCpuTimeMs: 2_000 }).execute(
      keyFor(SOURCE, { templateVersionId: "pipe-retire" }),
      Array.from({ length: N }, (_, i) => item({ i, burn: i % 100 === 0 ? 1_000_000 : 0 })),
    );
    expect(results.filter((r) => r.outcome !== "ok")).toEqual([]);
    expect(results.map((r) => r.scores[0]!.value)).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(new Set(results.map((r) => r.scores[1]!.value)).size).toBeGreaterThan(1);
  }, 30_000);
});
