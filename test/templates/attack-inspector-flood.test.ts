// Attack test of issue 26, finding 4 (and the memory item of 8): one workspace flooding the host
// source inspector (validateTemplate is a query, with 30 aliases a request) used to put every other
// workspace's one-line tryCode behind its whole flood (one FIFO for everyone: 74.5 s). Now the
// queue is fair between workspaces (round-robin), bounded per workspace (LIMIT_EXCEEDED with a
// retry time), never parses more than 256 KiB of source at once, and each parsed source takes a
// point of the workspace's inspection budget. Ordering is asserted, not wall time (the seconds
// figure is in scripts/measure-inspector.ts).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RateLimitedError } from "../../src/lib/errors.js";
import { createFairQueue } from "../../src/lib/fair-queue.js";
import { inspectPython, MAX_INSPECTION_BYTES_IN_FLIGHT, MAX_QUEUED_INSPECTIONS_PER_WORKSPACE } from "../../src/lib/inspect-python.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

function deferred() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe("attack: one workspace floods the shared source inspector (issue 26, finding 4)", () => {
  it("serves the victim's one job right after the flooder's running ones, not after its queued flood", async () => {
    const started: string[] = [];
    const queue = createFairQueue({ concurrency: 2, maxBytesInFlight: 1e9, maxQueuedPerOwner: 100, maxQueued: 1000, what: "jobs" }, { started: (owner, label) => started.push(`${owner}:${label}`) });
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const job = (owner: string, label: string) => {
      const gate = deferred();
      gates.set(`${owner}:${label}`, gate);
      return queue.run(owner, 10, () => gate.promise, label);
    };
    const flood = Array.from({ length: 90 }, (_, i) => job("flooder", String(i)));
    const victim = job("victim", "tryCode");
    expect(started).toEqual(["flooder:0", "flooder:1"]);
    gates.get("flooder:0")!.release();
    await flood[0];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(["flooder:0", "flooder:1", "victim:tryCode"]); // not flooder:2
    for (const [, gate] of gates) gate.release();
    await Promise.all([...flood, victim]);
  });

  it("refuses an owner's job past its queue bound with LIMIT_EXCEEDED and a retry time, while another owner still gets in", async () => {
    const queue = createFairQueue({ concurrency: 1, maxBytesInFlight: 1e9, maxQueuedPerOwner: 3, maxQueued: 100, what: "jobs" });
    const gate = deferred();
    const held = Array.from({ length: 4 }, () => queue.run("a", 1, () => gate.promise)); // 1 running + 3 waiting
    const refused = await queue.run("a", 1, async () => undefined).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).code).toBe("LIMIT_EXCEEDED");
    expect((refused as RateLimitedError).details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((refused as Error).message).toMatch(/^too many jobs queued: this workspace already has 3 waiting \(at most 3\); retry in \d+ s$/);
    const other = queue.run("b", 1, async () => "b");
    gate.release();
    expect(await other).toBe("b");
    await Promise.all(held);
  });

  it("never runs two sources side by side past the bytes in flight (the inspector's memory bound)", async () => {
    let peak = 0;
    const queue = createFairQueue({ concurrency: 2, maxBytesInFlight: 100, maxQueuedPerOwner: 10, maxQueued: 10, what: "jobs" });
    const task = async () => {
      peak = Math.max(peak, queue.stats().bytesInFlight);
      await new Promise((r) => setTimeout(r, 5));
    };
    await Promise.all([queue.run("a", 80, task), queue.run("b", 80, task), queue.run("c", 20, task), queue.run("d", 150, task)]);
    expect(peak).toBe(150); // 80+80 never together; the oversize one alone
    expect(MAX_INSPECTION_BYTES_IN_FLIGHT).toBe(256 * 1024);
  });

  it("starts another owner's small source beside a large one while the flooder's next large source waits for room", async () => {
    const started: string[] = [];
    const queue = createFairQueue({ concurrency: 2, maxBytesInFlight: 100, smallTaskBytes: 10, maxQueuedPerOwner: 10, maxQueued: 10, what: "jobs" }, { started: (owner, label) => started.push(`${owner}:${label}`) });
    const gates = [deferred(), deferred(), deferred()];
    const big0 = queue.run("flooder", 100, () => gates[0]!.promise, "big0");
    const big1 = queue.run("flooder", 100, () => gates[1]!.promise, "big1");
    const small = queue.run("victim", 5, () => gates[2]!.promise, "oneLiner");
    // Without the small lane the victim would wait for big0 (the flooder's big1 is in turn and does not fit).
    expect(started).toEqual(["flooder:big0", "victim:oneLiner"]);
    expect(queue.stats().bytesInFlight).toBe(100); // the small one does not count
    gates[2]!.release();
    await small;
    expect(started).toEqual(["flooder:big0", "victim:oneLiner"]); // big1 still waits for room, never beside big0
    gates[0]!.release();
    await big0;
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(["flooder:big0", "victim:oneLiner", "flooder:big1"]);
    gates[1]!.release();
    await big1;
  });

  it("on the real inspector: a workspace past its queue bound is refused, the other workspace's one-liner parses", async () => {
    const flooder = `flood-${randomUUID()}`;
    const big = "x = 1\n".repeat(40_000);
    const flood = Array.from({ length: MAX_QUEUED_INSPECTIONS_PER_WORKSPACE + 4 }, () => inspectPython(big, "template", flooder).then(() => "done", (e: unknown) => e));
    const victim = await inspectPython<{ ok: boolean }>("def evaluate(ctx):\n    return True\n", "template", `victim-${randomUUID()}`);
    expect(victim.ok).toBe(true);
    const results = await Promise.all(flood);
    expect(results.filter((r) => r instanceof RateLimitedError).length).toBeGreaterThanOrEqual(1);
  });

  it("counts every validateTemplate alias against the workspace's inspection budget (a query, 429 past it)", async () => {
    const app = createTestApp({ RATE_LIMIT_INSPECTIONS_PER_MINUTE: "5" });
    try {
      const client = graphqlClient(app);
      const ws = await createTestWorkspace(app, "inspect-budget");
      const aliases = Array.from({ length: 6 }, (_, i) => `v${i}: validateTemplate(sourceCode: $code) { issues { path message } }`).join("\n");
      const res = await client.request(`query($code: String!) { ${aliases} }`, { code: "def evaluate(ctx):\n    return True\n" }, ws.secret);
      const limited = (res.errors ?? []).filter((e) => e.extensions?.code === "LIMIT_EXCEEDED");
      expect(limited.length).toBe(1); // the sixth
      expect(limited[0]!.extensions!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(limited[0]!.message).toMatch(/^rate limit: at most 5 source inspections per minute per workspace/);
      const other = await createTestWorkspace(app, "inspect-budget-other");
      const fine = await client.request(`query($code: String!) { validateTemplate(sourceCode: $code) { issues { path } } }`, { code: "def evaluate(ctx):\n    return True\n" }, other.secret);
      expect(fine.errors).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
