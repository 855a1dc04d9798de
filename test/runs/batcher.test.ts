// The live batcher (runs/batcher.ts) and the crash count of batched jobs, without a queue: batches
// of one at rest, growing with what waits, one item per span per batch, suspects alone.
import { describe, expect, it } from "vitest";
import { createBatcher, type Settled } from "../../src/modules/runs/batcher.js";
import { crashesOf } from "../../src/modules/runs/processor.js";

type Item = { key: string; span: string; solo?: boolean };

function harness(maxBatch = 3) {
  const batches: string[][] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const batcher = createBatcher<Item, string>({
    run: async (_key, items) => {
      batches.push(items.map((i) => i.span));
      if (hold) {
        hold = false; // only the next batch is held
        await new Promise<void>((r) => (release = r));
      }
      return items.map((i): Settled<string> => (i.span === "bad" ? { ok: false, error: new Error("bad item") } : { ok: true, value: `done ${i.span}` }));
    },
    keyOf: (i) => i.key,
    distinctOf: (i) => i.span,
    soloOf: (i) => i.solo === true,
    options: { maxBatch, inFlightPerKey: 1 },
  });
  return { batcher, batches, holdNext: () => (hold = true), release: () => release?.() };
}

describe("the live batcher", () => {
  it("runs a lone item at once, alone", async () => {
    const h = harness();
    expect(await h.batcher.submit({ key: "e1", span: "a" })).toBe("done a");
    expect(h.batches).toEqual([["a"]]);
  });

  it("coalesces what arrives while a batch runs, per key, up to maxBatch, one item per span; each item settles on its own", async () => {
    const h = harness(3);
    h.holdNext();
    const first = h.batcher.submit({ key: "e1", span: "a" });
    await new Promise((r) => setImmediate(r));
    const rest = ["b", "c", "b", "bad", "d"].map((span) => h.batcher.submit({ key: "e1", span }).catch((e: Error) => e.message));
    const other = h.batcher.submit({ key: "e2", span: "a" });
    expect(await other).toBe("done a"); // another key does not wait
    h.release();
    expect(await first).toBe("done a");
    expect(await Promise.all(rest)).toEqual(["done b", "done c", "done b", "bad item", "done d"]);
    expect(h.batches).toEqual([["a"], ["a"], ["b", "c", "bad"], ["b", "d"]]);
  });

  it("runs a suspect alone", async () => {
    const h = harness(10);
    h.holdNext();
    const first = h.batcher.submit({ key: "e1", span: "x" });
    await new Promise((r) => setImmediate(r));
    const rest = [h.batcher.submit({ key: "e1", span: "p", solo: true }), h.batcher.submit({ key: "e1", span: "q" }), h.batcher.submit({ key: "e1", span: "r" })];
    h.release();
    await Promise.all([first, ...rest]);
    expect(h.batches).toEqual([["x"], ["p"], ["q", "r"]]);
  });

  it("counts as crashes only the stalls a job spent in the sandbox", () => {
    const tracked = { attemptsMade: 0, opts: {}, enteredSandbox: async () => undefined };
    expect(crashesOf({ ...tracked, stalledCounter: 2, sandboxEntries: 0 })).toBe(0); // held twice, never run
    expect(crashesOf({ ...tracked, stalledCounter: 2, sandboxEntries: 2 })).toBe(2); // in the sandbox at both deaths
    expect(crashesOf({ ...tracked, stalledCounter: 1, sandboxEntries: 3 })).toBe(1); // retried sandbox faults, one death
    expect(crashesOf({ attemptsMade: 0, opts: {}, stalledCounter: 2 })).toBe(2); // no count kept: every stall counts
  });
});
