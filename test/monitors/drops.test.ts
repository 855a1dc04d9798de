// Drops against a baseline over synthetic runs (Done when of issue 31): a real drop fires
// (pass rate 0.90 → 0.80, n = 500 each side) with its p-value in the event, noise does not
// (0.90 → 0.88, n = 50), and a version monitor compares the previous and current template
// versions over the same window. Mean drops use Welch's t over the SQL aggregates.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { welchTTest } from "../../src/modules/monitors/stats.js";
import { alignedEnd, manualClock, monitorFixture } from "./helpers.js";

const HOUR = 3_600_000;
const CADENCE = 300;
const clock = manualClock(new Date());
let app: App;
beforeAll(() => {
  app = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: `oodle-test-mon-drops-${randomUUID().slice(0, 8)}` }), { clock });
});
afterAll(async () => {
  await app?.close();
});

/** Creates the monitor just before window end `end`, then evaluates at `end` (its first and only due window). */
async function evaluateOnce(principal: { workspaceId: string; apiKeyId: string }, input: Record<string, unknown>, end: Date) {
  clock.set(new Date(end.getTime() - 60_000));
  const monitor = await app.services.monitors.createMonitor(principal, { windowSeconds: 3600, cadenceSeconds: CADENCE, ...input });
  clock.set(new Date(end.getTime() + 3_000));
  const report = await app.services.monitors.evaluateDue(monitor.id);
  expect(report).toMatchObject({ evaluated: 1, already: 0, more: false });
  const evaluation = await app.prisma.monitorEvaluation.findUniqueOrThrow({ where: { monitorId_windowEnd: { monitorId: monitor.id, windowEnd: end } } });
  const deliveries = await app.prisma.alertDelivery.findMany({ where: { monitorId: monitor.id } });
  return { monitor: await app.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } }), evaluation, deliveries };
}

describe("a drop of the pass rate against the previous window", () => {
  it("fires on 0.90 → 0.80 with n = 500 each side, with n, the effect, the p-value and 20 failing spans in the event", async () => {
    const fx = await monitorFixture(app, "drop-real");
    const end = alignedEnd(CADENCE, 12 * 24);
    await fx.runs({ from: new Date(end.getTime() - 2 * HOUR), to: new Date(end.getTime() - HOUR), n: 500, passes: 450 });
    await fx.runs({ from: new Date(end.getTime() - HOUR), to: end, n: 500, passes: 400 });
    const { destination } = await app.services.monitors.createDestination(fx.principal, { name: "hook", kind: "webhook", url: "https://alerts.example.com/oodle" });
    const { monitor, evaluation, deliveries } = await evaluateOnce(
      fx.principal,
      { name: "helpful drop", evaluatorId: fx.evaluator.id, scoreName: "helpful", metric: "pass_rate", condition: "drop", baseline: "previous_window", minEffect: 0.05, destinationIds: [destination.id] },
      end,
    );
    expect(evaluation).toMatchObject({ state: "ALERT", n: 500, baselineN: 500 });
    expect(evaluation.value).toBeCloseTo(0.8, 12);
    expect(evaluation.baselineValue).toBeCloseTo(0.9, 12);
    expect(evaluation.effect).toBeCloseTo(-0.1, 12);
    expect(evaluation.statistic).toBeCloseTo(-4.428074427700476, 9);
    expect(evaluation.pValue! / 4.753904768836229e-6).toBeCloseTo(1, 6);
    expect(evaluation.detail).toMatchObject({ tested: true, test: "two_proportion_z", badSide: "down", baselineKind: "previous_window" });
    expect(monitor).toMatchObject({ state: "ALERT", notifiedState: "ALERT", lastWindowEnd: end });
    expect(await app.prisma.monitorTransition.findMany({ where: { monitorId: monitor.id } })).toMatchObject([{ fromState: "OK", toState: "ALERT", cause: "evaluation", windowEnd: end }]);

    expect(deliveries).toHaveLength(1);
    const event = deliveries[0]!.payload as Record<string, any>;
    expect(event).toMatchObject({ type: "monitor.firing", state: "ALERT", previousState: "OK", n: 500, baseline: { kind: "previous_window", n: 500 } });
    expect(event.pValue).toBe(evaluation.pValue);
    expect(event.effect).toBe(evaluation.effect);
    expect(event.window).toEqual({ start: new Date(end.getTime() - HOUR).toISOString(), end: end.toISOString() });
    // 20 examples, each a span of this workspace whose score failed in the window.
    expect(event.examples).toHaveLength(20);
    const scores = await app.prisma.score.findMany({ where: { runId: { in: event.examples.map((e: { runId: string }) => e.runId) } }, include: { run: { include: { span: true } } } });
    expect(scores).toHaveLength(20);
    for (const s of scores) {
      expect(s.numericValue).toBe(0);
      expect(s.workspaceId).toBe(fx.ws.workspace.id);
      expect(s.createdAt.getTime()).toBeGreaterThanOrEqual(end.getTime() - HOUR);
      const example = event.examples.find((e: { runId: string }) => e.runId === s.runId);
      expect(example).toMatchObject({ spanId: s.spanId, traceId: s.run.span!.traceId, otelSpanId: s.run.span!.spanId, value: false });
    }
  });

  it("does not fire on noise, 0.90 → 0.88 with n = 50, and says why with the p-value", async () => {
    const fx = await monitorFixture(app, "drop-noise");
    const end = alignedEnd(CADENCE, 12 * 24 + 1);
    await fx.runs({ from: new Date(end.getTime() - 2 * HOUR), to: new Date(end.getTime() - HOUR), n: 50, passes: 45 });
    await fx.runs({ from: new Date(end.getTime() - HOUR), to: end, n: 50, passes: 44 });
    const common = { evaluatorId: fx.evaluator.id, scoreName: "helpful", metric: "pass_rate", condition: "drop", baseline: "previous_window" };
    // The minimum effect guards it.
    const byEffect = await evaluateOnce(fx.principal, { ...common, name: "noise, effect 0.05", minEffect: 0.05 }, end);
    expect(byEffect.evaluation).toMatchObject({ state: "OK", n: 50, baselineN: 50 });
    expect(byEffect.evaluation.pValue).toBeCloseTo(0.3746352617642287, 9);
    expect(byEffect.evaluation.reason).toMatch(/no drop: down 0\.02, less than minEffect 0\.05 \(p = 0\.3746\)/);
    // And with a tiny minimum effect, the significance test does.
    const byTest = await evaluateOnce(fx.principal, { ...common, name: "noise, effect 0.01", minEffect: 0.01 }, end);
    expect(byTest.evaluation).toMatchObject({ state: "OK" });
    expect(byTest.evaluation.pValue).toBeCloseTo(0.3746352617642287, 9);
    expect(byTest.evaluation.reason).toMatch(/no significant drop: down 0\.02, but p = 0\.3746 is not below 0\.05/);
    expect([...byEffect.deliveries, ...byTest.deliveries]).toHaveLength(0);
    // Below the minimum sample size on either side the drop is not tested at all.
    const short = await evaluateOnce(fx.principal, { ...common, name: "noise, n 60", minEffect: 0.01, minSampleSize: 60 }, end);
    expect(short.evaluation).toMatchObject({ state: "OK", pValue: null, reason: "not tested: n 50 vs 50, below minSampleSize 60" });
  });
});

describe("a drop against the previous template version over the same window", () => {
  it("compares version 2's runs with version 1's in one window, and names version 2's failures", async () => {
    const fx = await monitorFixture(app, "drop-version");
    await app.services.templates.updateTemplate(fx.principal, fx.template.id, { sourceCode: 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="helpful", value=False)])\n' });
    const end = alignedEnd(CADENCE, 12 * 24 + 2);
    const from = new Date(end.getTime() - HOUR);
    await fx.runs({ from, to: end, n: 500, passes: 450, version: 1 });
    await fx.runs({ from, to: end, n: 500, passes: 400, version: 2 });
    const { evaluation } = await evaluateOnce(
      fx.principal,
      { name: "v2 vs v1", evaluatorId: fx.evaluator.id, scoreName: "helpful", metric: "pass_rate", condition: "drop", baseline: "previous_version", minEffect: 0.05, destinationIds: [(await app.services.monitors.createDestination(fx.principal, { name: "slack", kind: "slack", url: "https://hooks.slack.com/services/T0/B0/xyz" })).destination.id] },
      end,
    );
    expect(evaluation).toMatchObject({ state: "ALERT", n: 500, baselineN: 500 });
    expect(evaluation.value).toBeCloseTo(0.8, 12);
    expect(evaluation.baselineValue).toBeCloseTo(0.9, 12);
    expect(evaluation.pValue! / 4.753904768836229e-6).toBeCloseTo(1, 6);
    expect(evaluation.detail).toMatchObject({ baselineKind: "previous_version", currentVersion: 2, previousVersion: 1, windowStart: from.toISOString(), windowEnd: end.toISOString() });
    const [delivery] = await app.prisma.alertDelivery.findMany({ where: { monitor: { name: "v2 vs v1", workspaceId: fx.ws.workspace.id } } });
    const examples = (delivery!.payload as { examples: { runId: string }[] }).examples;
    expect(examples).toHaveLength(20);
    const runs = await app.prisma.run.findMany({ where: { id: { in: examples.map((e) => e.runId) } } });
    expect(new Set(runs.map((r) => r.templateVersionId))).toEqual(new Set([await fx.versionId(2)]));

    // Pinned back to version 1, the current side is version 1 and there is no older one: not tested.
    await app.services.evaluators.updateEvaluator(fx.principal, fx.evaluator.id, { pinnedVersion: 1 });
    const pinned = await evaluateOnce(fx.principal, { name: "pinned v1", evaluatorId: fx.evaluator.id, scoreName: "helpful", metric: "pass_rate", condition: "drop", baseline: "previous_version", minEffect: 0.05 }, end);
    expect(pinned.evaluation).toMatchObject({ state: "OK", n: 500, pValue: null });
    expect(pinned.evaluation.reason).toMatch(/not tested: the previous template version has no pass rate/);
  });
});

describe("a drop of a mean against the same window a week before (Welch's t)", () => {
  it("fires on a mean that fell from 0.75 to 0.70, with the SQL's mean and variance as the data's", async () => {
    const fx = await monitorFixture(app, "drop-mean");
    const end = alignedEnd(CADENCE, 12 * 24 + 3);
    const week = 7 * 24 * HOUR;
    await fx.runs({ from: new Date(end.getTime() - HOUR - week), to: new Date(end.getTime() - week), n: 180, mean: 0.75, sd: 0.2, scoreName: "grounded" });
    await fx.runs({ from: new Date(end.getTime() - HOUR), to: end, n: 200, mean: 0.7, sd: 0.2, scoreName: "grounded" });
    const { evaluation } = await evaluateOnce(fx.principal, { name: "grounded mean", evaluatorId: fx.evaluator.id, scoreName: "grounded", metric: "mean", condition: "drop", baseline: "week_before", minEffect: 0.02 }, end);
    // The reference: the same test on the values read back one by one.
    const values = async (from: number, to: number) =>
      (await app.prisma.score.findMany({ where: { evaluatorId: fx.evaluator.id, name: "grounded", createdAt: { gte: new Date(from), lt: new Date(to) } } })).map((s) => s.numericValue!);
    const summary = (xs: number[]) => {
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      return { mean, variance: xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1), n: xs.length };
    };
    const expected = welchTTest(summary(await values(end.getTime() - HOUR, end.getTime())), summary(await values(end.getTime() - HOUR - week, end.getTime() - week)), "down");
    expect(evaluation).toMatchObject({ state: "ALERT", n: 200, baselineN: 180 });
    expect(evaluation.value).toBeCloseTo(0.7, 9);
    expect(evaluation.baselineValue).toBeCloseTo(0.75, 9);
    expect(evaluation.statistic).toBeCloseTo(expected.statistic, 9);
    expect(evaluation.pValue! / expected.pValue).toBeCloseTo(1, 6);
    expect(evaluation.pValue).toBeLessThan(0.05);
    expect(evaluation.detail).toMatchObject({ test: "welch_t", degreesOfFreedom: expect.closeTo(expected.degreesOfFreedom!, 6) });
  });
});
