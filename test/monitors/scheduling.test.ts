// The monitors' job schedulers and their reconciler (docs/monitors.md § Scheduling): a monitor
// gets a BullMQ job scheduler every cadence; when Redis loses everything, the reconciler puts the
// scheduler back, queues a catch-up for the windows that came due meanwhile and queues again the
// delivery whose job was lost; a worker then evaluates each missed window once.
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { schedulerId } from "../../src/modules/monitors/scheduling.js";
import { startWorkers } from "../../src/worker.js";
import { alignedEnd, manualClock, monitorFixture } from "./helpers.js";

const CADENCE = 300;
const W = CADENCE * 1000;
const prefix = `oodle-test-mon-sched-${randomUUID().slice(0, 8)}`;
const clock = manualClock(new Date());
let app: App;
beforeAll(() => {
  app = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: prefix, RECONCILE_GRACE_MS: "1000" }), { clock });
});
afterAll(async () => {
  await app?.close();
});

describe("schedulers and the reconciler", () => {
  it("puts back what a Redis without persistence lost, and the missed windows are evaluated once each", { timeout: 300_000 }, async () => {
    const fx = await monitorFixture(app, "sched");
    const t0 = alignedEnd(CADENCE, 12 * 24 * 9);
    const { destination } = await app.services.monitors.createDestination(fx.principal, { name: "unreachable", kind: "webhook", url: "https://alerts.example.com/h" });
    clock.set(new Date(t0.getTime() - 10_000));
    const m = await app.services.monitors.createMonitor(fx.principal, { name: "volume", evaluatorId: fx.evaluator.id, metric: "count", windowSeconds: CADENCE, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 1, destinationIds: [destination.id] });
    const other = await app.services.monitors.createMonitor(fx.principal, { name: "disabled later", evaluatorId: fx.evaluator.id, metric: "count", windowSeconds: CADENCE, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 1 });
    expect(await app.queues.schedulers("monitor-evaluate")).toEqual(expect.arrayContaining([{ id: schedulerId(m.id), everyMs: W }, { id: schedulerId(other.id), everyMs: W }]));
    // The first window fires (no runs: count 0 < 1) and writes a delivery; no delivery worker runs, so it stays pending.
    expect((await (async () => { clock.set(new Date(t0.getTime() + 3_000)); return app.services.monitors.evaluateDue(m.id); })()).states).toEqual(["ALERT"]);
    const delivery = await app.prisma.alertDelivery.findFirstOrThrow({ where: { monitorId: m.id } });
    expect(delivery.status).toBe("pending");

    // Disabled: its scheduler goes.
    await app.services.monitors.updateMonitor(fx.principal, { id: other.id, enabled: false });
    expect((await app.queues.schedulers("monitor-evaluate")).map((s) => s.id)).not.toContain(schedulerId(other.id));

    // Redis restarts empty.
    for (const name of ["monitor-evaluate", "monitor-delivery"]) {
      const q = new Queue(name, { connection: app.redis, prefix });
      await q.obliterate({ force: true });
      await q.close();
    }
    expect(await app.queues.schedulers("monitor-evaluate")).toEqual([]);

    // Three more windows came due while it was down; the reconciler's pass puts everything back.
    clock.set(new Date(t0.getTime() + 3 * W + 3_000 + 2_000));
    expect(await app.services.monitors.scheduling.reconcile({ workspaceId: fx.ws.workspace.id })).toEqual({ schedulersAdded: 1, schedulersRemoved: 0, catchUps: 1, deliveriesRequeued: 1 });
    expect(await app.queues.schedulers("monitor-evaluate")).toEqual([{ id: schedulerId(m.id), everyMs: W }]);
    // A second pass finds nothing to do (the catch-up and the delivery are queued).
    expect(await app.services.monitors.scheduling.reconcile({ workspaceId: fx.ws.workspace.id })).toEqual({ schedulersAdded: 0, schedulersRemoved: 0, catchUps: 0, deliveriesRequeued: 0 });

    const workers = await startWorkers(app, { queues: ["monitor-evaluate"], reconcileIntervalMs: 0 });
    try {
      for (const deadline = Date.now() + 120_000; ; ) {
        const row = await app.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } });
        if (row.lastWindowEnd?.getTime() === t0.getTime() + 3 * W) break;
        if (Date.now() > deadline) throw new Error(`not caught up: ${row.lastWindowEnd?.toISOString()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await workers.close();
    }
    const ends = (await app.prisma.monitorEvaluation.findMany({ where: { monitorId: m.id }, orderBy: { windowEnd: "asc" } })).map((e) => e.windowEnd.getTime());
    expect(ends).toEqual([0, 1, 2, 3].map((k) => t0.getTime() + k * W));
    // The delivery's job is back in Redis, waiting for a delivery worker.
    const [state] = await app.queues.states("monitor-delivery", [`${delivery.id}_1`]);
    expect(state).toBe("waiting");
    // Deleted: its scheduler goes.
    await app.services.monitors.deleteMonitor(fx.principal, { id: m.id });
    expect(await app.queues.schedulers("monitor-evaluate")).toEqual([]);
  });
});
