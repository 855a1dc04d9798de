// The pool's slots are shared fairly between workspaces (no first come, first
// served across them): while one workspace saturates the slots, another's call gets the next one.
import { afterAll, describe, expect, it } from "vitest";
import { RunnerPool } from "../../src/execution/pool.js";
import { createExecutor } from "../../src/execution/index.js";
import { createLogger } from "../../src/lib/logger.js";
import { item, keyFor, TEST_LIMITS } from "./helpers.js";

describe("fair share of pool slots", () => {
  it("hands a freed slot to the workspace holding fewest, round robin among equals", async () => {
    const pool = new RunnerPool({ maxBusy: 1, maxIdle: 1, idleMs: 60_000 });
    const order: string[] = [];
    await pool.acquireSlot("a");
    const waits = [
      ...["a1", "a2", "a3", "a4"].map((n) => pool.acquireSlot("a").then(() => order.push(n))),
      pool.acquireSlot("b").then(() => order.push("b1")),
    ];
    for (let i = 0; i < 5; i++) {
      pool.releaseSlot(order.at(-1)?.startsWith("b") ? "b" : "a");
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(waits);
    // b's one call is served after at most one more of a's (never behind a's whole backlog).
    expect(order.indexOf("b1")).toBeLessThanOrEqual(1);
    expect(order.filter((n) => n.startsWith("a"))).toEqual(["a1", "a2", "a3", "a4"]);
    await pool.close();
  });

  const executor = createExecutor({ limits: TEST_LIMITS, logger: createLogger("silent"), pool: { maxBusy: 1, maxIdle: 4, idleMs: 60_000 } });
  afterAll(() => executor.close());

  it("a second workspace's one item is not queued behind a first workspace's sleeping calls", async () => {
    const sleepy = keyFor("import time\ndef evaluate(ctx):\n    time.sleep(0.3)\n    return EvaluationResult(scores=[Score(name='slept', value=True)])\n", { workspaceId: "ws-busy", templateVersionId: "fair-sleepy" });
    const quick = keyFor("def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='quick', value=True)])\n", { workspaceId: "ws-quiet", templateVersionId: "fair-quick" });
    const finished: string[] = [];
    // The first workspace: 6 calls of one sleeping item each, all waiting for the one slot.
    const busy = Array.from({ length: 6 }, (_, i) => executor.execute(sleepy, [item({}, "ws-busy")]).then((r) => { finished.push(`busy${i}`); return r; }));
    await new Promise((r) => setTimeout(r, 50));
    const quiet = executor.execute(quick, [item({}, "ws-quiet")]).then((r) => { finished.push("quiet"); return r; });
    const [quietResult] = await quiet;
    const busyResults = await Promise.all(busy);
    expect(quietResult!.outcome).toBe("ok");
    expect(busyResults.every(([r]) => r!.outcome === "ok")).toBe(true);
    // Outcome, not duration: the quiet workspace finished before most of the busy one's backlog.
    expect(finished.indexOf("quiet")).toBeLessThanOrEqual(2);
  });
});
