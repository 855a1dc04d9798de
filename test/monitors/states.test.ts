// A monitor's states over successive windows (docs/monitors.md § States): thresholds on the bad
// side the metric and the score's higherIsBetter give, NO_DATA below minCount, transitions,
// renotify, mute (nothing sent, what changed told once unmuted) and resolve by hand; and the
// settings a monitor is refused with, each naming its field.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { alignedEnd, manualClock, monitorFixture } from "./helpers.js";

const CADENCE = 300;
const W = CADENCE * 1000;
const clock = manualClock(new Date());
let app: App;
beforeAll(() => {
  app = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: `oodle-test-mon-states-${randomUUID().slice(0, 8)}` }), { clock });
});
afterAll(async () => {
  await app?.close();
});

/** Moves the clock just past window end `end` and evaluates what is due. */
async function at(monitorId: string, end: Date) {
  clock.set(new Date(end.getTime() + 3_000));
  return app.services.monitors.evaluateDue(monitorId);
}

describe("states over successive windows", () => {
  it("WARNING, ALERT, NO_DATA and OK again, with a transition each, renotify, mute and resolve by hand", async () => {
    const fx = await monitorFixture(app, "states");
    const t0 = alignedEnd(CADENCE, 12 * 24 * 6);
    const end = (k: number) => new Date(t0.getTime() + k * W);
    // Windows of 5 minutes: k = 0 pass rate 0.95 (OK), 1: 0.88 (WARNING, < 0.9), 2: 0.80 (ALERT, < 0.85), 3: 0.80, 4: nothing (NO_DATA), 5: 0.95, 6: 0.80, 7: 0.80, 8: 0.80.
    const rates = [0.95, 0.88, 0.8, 0.8, null, 0.95, 0.8, 0.8, 0.8];
    for (const [k, rate] of rates.entries()) if (rate !== null) await fx.runs({ from: new Date(end(k).getTime() - W), to: end(k), n: 100, passes: Math.round(rate * 100) });
    const { destination } = await app.services.monitors.createDestination(fx.principal, { name: "hook", kind: "webhook", url: "https://alerts.example.com/h" });
    clock.set(new Date(t0.getTime() - 10_000));
    const m = await app.services.monitors.createMonitor(fx.principal, { name: "helpful", evaluatorId: fx.evaluator.id, scoreName: "helpful", metric: "pass_rate", windowSeconds: CADENCE, cadenceSeconds: CADENCE, condition: "threshold", warningLevel: 0.9, alertLevel: 0.85, minCount: 10, renotifySeconds: 600, destinationIds: [destination.id] });
    const events = async () => (await app.prisma.alertDelivery.findMany({ where: { monitorId: m.id }, orderBy: { createdAt: "asc" } })).map((d) => `${d.event}:${(d.payload as { state: string }).state}`);

    expect((await at(m.id, end(0))).states).toEqual(["OK"]);
    expect((await at(m.id, end(1))).states).toEqual(["WARNING"]);
    expect((await at(m.id, end(2))).states).toEqual(["ALERT"]);
    // Still ALERT 5 minutes later: renotify is 10 minutes, so nothing yet.
    expect((await at(m.id, end(3))).states).toEqual(["ALERT"]);
    expect(await events()).toEqual(["firing:WARNING", "firing:ALERT"]);
    expect((await at(m.id, end(4))).states).toEqual(["NO_DATA"]);
    const noData = await app.prisma.monitorEvaluation.findUniqueOrThrow({ where: { monitorId_windowEnd: { monitorId: m.id, windowEnd: end(4) } } });
    expect(noData).toMatchObject({ state: "NO_DATA", n: 0, value: null, reason: "0 value(s) in the window, fewer than minCount 10" });
    expect((await at(m.id, end(5))).states).toEqual(["OK"]);
    expect(await events()).toEqual(["firing:WARNING", "firing:ALERT", "firing:NO_DATA", "resolved:OK"]);

    // Muted: ALERT at k = 6 is recorded, nothing is sent.
    await app.services.monitors.muteMonitor(fx.principal, { id: m.id, reason: "deploy" });
    expect((await at(m.id, end(6))).states).toEqual(["ALERT"]);
    expect(await events()).toHaveLength(4);
    // Unmuted: the next window tells what changed meanwhile (ALERT), once.
    await app.services.monitors.unmuteMonitor(fx.principal, { id: m.id });
    expect((await at(m.id, end(7))).states).toEqual(["ALERT"]);
    expect(await events()).toEqual(["firing:WARNING", "firing:ALERT", "firing:NO_DATA", "resolved:OK", "firing:ALERT"]);
    // Resolved by hand: OK now and told; the next window, still bad, fires again.
    clock.set(new Date(end(7).getTime() + 60_000));
    const resolved = await app.services.monitors.resolveMonitor(fx.principal, { id: m.id, reason: "fixed the prompt" });
    expect(resolved).toMatchObject({ state: "OK", notifiedState: "OK" });
    expect((await at(m.id, end(8))).states).toEqual(["ALERT"]);
    expect(await events()).toEqual(["firing:WARNING", "firing:ALERT", "firing:NO_DATA", "resolved:OK", "firing:ALERT", "resolved:OK", "firing:ALERT"]);
    // 10 minutes in ALERT: renotify.
    await fx.runs({ from: new Date(end(9).getTime() - W), to: end(9), n: 100, passes: 80 });
    await fx.runs({ from: new Date(end(10).getTime() - W), to: end(10), n: 100, passes: 80 });
    await at(m.id, end(9));
    expect((await events()).at(-1)).toBe("firing:ALERT");
    await at(m.id, end(10));
    expect((await events()).at(-1)).toBe("renotify:ALERT");

    const transitions = await app.prisma.monitorTransition.findMany({ where: { monitorId: m.id }, orderBy: { at: "asc" } });
    expect(transitions.map((t) => `${t.fromState}>${t.toState} ${t.cause}`)).toEqual([
      "OK>WARNING evaluation",
      "WARNING>ALERT evaluation",
      "ALERT>NO_DATA evaluation",
      "NO_DATA>OK evaluation",
      "OK>ALERT evaluation",
      "ALERT>OK resolved_by_hand",
      "OK>ALERT evaluation",
    ]);
    expect(transitions[5]!.reason).toBe("resolved by hand: fixed the prompt");
    expect(await app.prisma.monitorEvaluation.count({ where: { monitorId: m.id } })).toBe(11);
  });

  it("catches up every window missed while no worker ran, and tells only the newest state", async () => {
    const fx = await monitorFixture(app, "catch-up");
    const t0 = alignedEnd(CADENCE, 12 * 24 * 7);
    const { destination } = await app.services.monitors.createDestination(fx.principal, { name: "hook", kind: "webhook", url: "https://alerts.example.com/h" });
    clock.set(new Date(t0.getTime() - 10_000));
    const m = await app.services.monitors.createMonitor(fx.principal, { name: "volume", evaluatorId: fx.evaluator.id, metric: "count", windowSeconds: CADENCE, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 1, destinationIds: [destination.id] });
    // Runs only in window 7 (the last): ALERT in 0–6, OK at 7.
    await fx.runs({ from: new Date(t0.getTime() + 6 * W), to: new Date(t0.getTime() + 7 * W), n: 3, passes: 3 });
    const report = await at(m.id, new Date(t0.getTime() + 7 * W));
    expect(report).toMatchObject({ evaluated: 8, already: 0, more: false });
    expect(report.states).toEqual(["ALERT", "ALERT", "ALERT", "ALERT", "ALERT", "ALERT", "ALERT", "OK"]);
    // The windows in between are history; the destinations hear of the state as it is now: OK, which they were last told.
    expect(await app.prisma.alertDelivery.count({ where: { monitorId: m.id } })).toBe(0);
    expect(await app.prisma.monitorTransition.count({ where: { monitorId: m.id } })).toBe(2);
    // The same job again does nothing.
    expect(await app.services.monitors.evaluateDue(m.id)).toMatchObject({ evaluated: 0 });
    // Disabled for five windows, then enabled again: it resumes at the newest due window only.
    await app.services.monitors.updateMonitor(fx.principal, { id: m.id, enabled: false });
    clock.set(new Date(t0.getTime() + 12 * W + 3_000));
    await app.services.monitors.updateMonitor(fx.principal, { id: m.id, enabled: true });
    expect(await app.services.monitors.evaluateDue(m.id)).toMatchObject({ evaluated: 1, states: ["ALERT"] });
    expect((await app.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } })).lastWindowEnd).toEqual(new Date(t0.getTime() + 12 * W));
  });
});

describe("thresholds take their side from the metric and the score", () => {
  it("a lower-is-better mean fires above its level; not_ok_share above; count below", async () => {
    const fx = await monitorFixture(app, "sides");
    const end = alignedEnd(CADENCE, 12 * 24 * 8);
    await fx.runs({ from: new Date(end.getTime() - W), to: end, n: 50, mean: 0.4, sd: 0.1, higherIsBetter: false, scoreName: "toxicity" });
    await fx.runs({ from: new Date(end.getTime() - W), to: end, n: 50, failures: 10, passes: 40 });
    clock.set(new Date(end.getTime() - 10_000));
    const make = (name: string, input: Record<string, unknown>) => app.services.monitors.createMonitor(fx.principal, { name, evaluatorId: fx.evaluator.id, windowSeconds: CADENCE, cadenceSeconds: CADENCE, condition: "threshold", ...input });
    const toxicity = await make("toxicity", { metric: "mean", scoreName: "toxicity", warningLevel: 0.3, alertLevel: 0.5 });
    const p90 = await make("toxicity p90", { metric: "percentile", percentile: 90, scoreName: "toxicity", alertLevel: 0.45 });
    const failures = await make("failures", { metric: "not_ok_share", warningLevel: 0.05, alertLevel: 0.25 });
    const volume = await make("volume", { metric: "count", alertLevel: 200 });
    const results = new Map<string, { state: string; value: number | null; reason: string }>();
    for (const m of [toxicity, p90, failures, volume]) {
      await at(m.id, end);
      results.set(m.name, await app.prisma.monitorEvaluation.findUniqueOrThrow({ where: { monitorId_windowEnd: { monitorId: m.id, windowEnd: end } } }));
    }
    expect(results.get("toxicity")).toMatchObject({ state: "WARNING", reason: "mean of toxicity 0.4 is above the warning level 0.3 (n 50)" });
    expect(results.get("toxicity")!.value).toBeCloseTo(0.4, 9);
    // The 90th percentile with linear interpolation (percentile_cont), checked against the values themselves.
    const values = (await app.prisma.score.findMany({ where: { evaluatorId: fx.evaluator.id, name: "toxicity" }, select: { numericValue: true } })).map((s) => s.numericValue!).sort((a, b) => a - b);
    const rank = 0.9 * (values.length - 1);
    const p90Expected = values[Math.floor(rank)]! + (rank - Math.floor(rank)) * (values[Math.ceil(rank)]! - values[Math.floor(rank)]!);
    expect(results.get("toxicity p90")!.value).toBeCloseTo(p90Expected, 12);
    expect(results.get("toxicity p90")!.state).toBe("ALERT");
    // 10 of the window's 100 runs failed (user_error): 0.1, past the warning level 0.05, not the alert level 0.25.
    expect(results.get("failures")).toMatchObject({ state: "WARNING", value: 0.1 });
    // 100 runs (both sets) in the window, below 200: ALERT on the low side.
    expect(results.get("volume")).toMatchObject({ state: "ALERT", value: 100, reason: "count 100 is below the alert level 200 (n 100)" });
  });
});

describe("settings that are refused", () => {
  it("name the field and the rule", async () => {
    const fx = await monitorFixture(app, "refused");
    await fx.runs({ from: new Date(Date.now() - 2 * W), to: new Date(Date.now() - W), n: 5, mean: 0.2, sd: 0.01, higherIsBetter: false, scoreName: "toxicity" });
    const base = { name: "x", evaluatorId: fx.evaluator.id, windowSeconds: 3600, cadenceSeconds: 300 };
    const issues = async (input: Record<string, unknown>) => {
      try {
        await app.services.monitors.createMonitor(fx.principal, { ...base, ...input });
      } catch (error) {
        return (error as { details: { issues: { path: string; message: string }[] } }).details.issues;
      }
      throw new Error("accepted");
    };
    expect(await issues({ metric: "pass_rate", condition: "threshold", alertLevel: 0.8 })).toEqual([{ path: "scoreName", message: "is required for metric pass_rate: the score of the evaluator to watch" }]);
    expect(await issues({ metric: "pass_rate", scoreName: "helpful", condition: "threshold", alertLevel: 1.5 })).toEqual([{ path: "alertLevel", message: "must be between 0 and 1 for metric pass_rate" }]);
    expect(await issues({ metric: "count", condition: "drop", baseline: "previous_window", minEffect: 3 })).toEqual([{ path: "condition", message: "a drop is tested for pass_rate, mean, not_ok_share (two-proportion z for shares, Welch's t for means), not count" }]);
    expect(await issues({ metric: "mean", scoreName: "helpful", condition: "drop" })).toEqual([
      { path: "baseline", message: "is required for condition drop: previous_window, week_before or previous_version" },
      { path: "minEffect", message: "is required for condition drop: the smallest change for the worse that fires, in the metric's unit" },
    ]);
    // The stored toxicity scores are lower-is-better: the warning must come below the alert level.
    expect(await issues({ metric: "mean", scoreName: "toxicity", condition: "threshold", warningLevel: 0.6, alertLevel: 0.4 })).toEqual([
      { path: "warningLevel", message: "must be reached before alertLevel: the bad side of this mean (toxicity, higherIsBetter false) is above, so warningLevel must be at or below alertLevel 0.4" },
    ]);
    expect(await issues({ metric: "count", condition: "threshold", alertLevel: 1, windowSeconds: 60, cadenceSeconds: 30 })).toEqual([
      { path: "windowSeconds", message: "must be at least 300 (5 minutes)" },
      { path: "cadenceSeconds", message: "must be at least 60" },
    ]);
    await expect(app.services.monitors.createMonitor(fx.principal, { ...base, metric: "count", condition: "threshold", alertLevel: 1, destinationIds: [randomUUID()] })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await app.services.monitors.createMonitor(fx.principal, { ...base, name: "taken", metric: "count", condition: "threshold", alertLevel: 1 });
    expect(await issues({ name: "taken", metric: "count", condition: "threshold", alertLevel: 1 })).toEqual([{ path: "name", message: 'a monitor named "taken" already exists in this workspace' }]);
  });
});
