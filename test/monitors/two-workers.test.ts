// Exactly once when scaled (Done when of issue 31): two workers (each its own app: Prisma pool,
// Redis connections, BullMQ workers) evaluate 200 monitors for 10 cadences while every window is
// queued twice per cadence (once through each app, as a scheduler and a reconciler racing) and the
// monitors' real job schedulers fire too: each (monitor, window) is evaluated once, none is
// missing, and the state changes it made are told once each.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { alignedEnd, manualClock, monitorFixture } from "./helpers.js";

const MONITORS = 200;
const CADENCES = 10;
const CADENCE = 300;
const prefix = `oodle-test-mon-two-${randomUUID().slice(0, 8)}`;
const clock = manualClock(new Date());
let a: App;
let b: App;
let workers: Workers[] = [];
beforeAll(() => {
  const config = loadConfig({ ...process.env, QUEUE_PREFIX: prefix });
  a = createApp(config, { clock });
  b = createApp(config, { clock });
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all([a?.close(), b?.close()]);
});

const evaluationsCounted = async (app: App) => {
  const metric = await app.metrics.registry.getSingleMetric("oodle_monitor_evaluations_total")!.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
};

describe("two workers, 200 monitors, 10 cadences", () => {
  it("evaluate every (monitor, window) exactly once and tell each state change once", { timeout: 600_000 }, async () => {
    const fx = await monitorFixture(a, "two-workers");
    const t0 = alignedEnd(CADENCE, 12 * 24 * 5);
    const end = (k: number) => new Date(t0.getTime() + k * CADENCE * 1000);
    // One run in the windows of even k, none in odd ones: count ≥ 1 is OK, 0 is ALERT, so every window after the first changes the state.
    for (let k = 0; k < CADENCES; k += 2) await fx.runs({ from: new Date(end(k).getTime() - 200_000), to: new Date(end(k).getTime() - 100_000), n: 1, passes: 1 });
    const { destination } = await a.services.monitors.createDestination(fx.principal, { name: "nowhere", kind: "webhook", url: "https://alerts.example.com/hook" });
    clock.set(new Date(t0.getTime() - 30_000));
    const monitors = [];
    for (let i = 0; i < MONITORS; i++) {
      monitors.push(await a.services.monitors.createMonitor(fx.principal, { name: `m${i}`, evaluatorId: fx.evaluator.id, metric: "count", windowSeconds: CADENCE, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 1, destinationIds: [destination.id] }));
    }
    workers = [await startWorkers(a, { queues: ["monitor-evaluate"], reconcileIntervalMs: 0 }), await startWorkers(b, { queues: ["monitor-evaluate"], reconcileIntervalMs: 0 })];

    for (let k = 0; k < CADENCES; k++) {
      clock.set(new Date(end(k).getTime() + 3_000));
      await a.queues.addBulk("monitor-evaluate", monitors.map((m) => ({ payload: { monitorId: m.id }, jobId: `round${k}_a_${m.id}` })));
      await b.queues.addBulk("monitor-evaluate", monitors.map((m) => ({ payload: { monitorId: m.id }, jobId: `round${k}_b_${m.id}` })));
      for (const deadline = Date.now() + 240_000; ; ) {
        const behind = await a.prisma.monitor.count({ where: { workspaceId: fx.ws.workspace.id, OR: [{ lastWindowEnd: null }, { lastWindowEnd: { lt: end(k) } }] } });
        if (behind === 0) break;
        if (Date.now() > deadline) throw new Error(`cadence ${k}: ${behind} monitors not evaluated`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    const rows = await a.prisma.monitorEvaluation.findMany({ where: { workspaceId: fx.ws.workspace.id }, select: { monitorId: true, windowEnd: true, state: true } });
    expect(rows).toHaveLength(MONITORS * CADENCES);
    const expectedEnds = Array.from({ length: CADENCES }, (_, k) => end(k).getTime());
    for (const m of monitors) {
      const mine = rows.filter((r) => r.monitorId === m.id);
      expect(mine.map((r) => r.windowEnd.getTime()).sort((x, y) => x - y)).toEqual(expectedEnds);
      expect(mine.sort((x, y) => x.windowEnd.getTime() - y.windowEnd.getTime()).map((r) => r.state)).toEqual(expectedEnds.map((_, k) => (k % 2 === 0 ? "OK" : "ALERT")));
    }
    // The two processes' evaluations add up to exactly one per window, and both took part.
    const [byA, byB] = [await evaluationsCounted(a), await evaluationsCounted(b)];
    expect(byA + byB).toBe(MONITORS * CADENCES);
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
    // Every window after the first changed the state: 9 transitions and 9 deliveries per monitor, none twice.
    expect(await a.prisma.monitorTransition.count({ where: { workspaceId: fx.ws.workspace.id } })).toBe(MONITORS * (CADENCES - 1));
    const deliveries = await a.prisma.alertDelivery.findMany({ where: { workspaceId: fx.ws.workspace.id }, select: { monitorId: true, event: true, payload: true } });
    expect(deliveries).toHaveLength(MONITORS * (CADENCES - 1));
    const keys = deliveries.map((d) => `${d.monitorId} ${(d.payload as { window: { end: string } }).window.end}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(deliveries.filter((d) => d.event === "firing")).toHaveLength(MONITORS * 5);
    expect(deliveries.filter((d) => d.event === "resolved")).toHaveLength(MONITORS * 4);
  });
});
