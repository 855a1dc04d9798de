// Retention of trace and session runs (a group run belongs to no span, so the span sweep does not
// take it): deleteGroupBatch deletes the runs written before the cutoff with their scores and
// history, and the schedules of groups whose last span is older and that wait for nothing.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { deleteGroupBatch } from "../../src/modules/retention/sweep.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

let app: App;
beforeAll(() => {
  app = createTestApp();
});
afterAll(() => app.close());

const DAY = 86_400_000;

describe("retention of trace and session runs", () => {
  it("deletes group runs, scores, history and idle schedules older than the cutoff, and keeps the newer", async () => {
    const { workspace } = await createTestWorkspace(app, "group-retention");
    const evaluator = await app.prisma.evaluator.create({ data: { workspaceId: workspace.id, name: "trace size", liveName: `trace size ${randomUUID()}`, target: "trace" } });
    const now = Date.now();
    const old = new Date(now - 40 * DAY);
    const recent = new Date(now - 1 * DAY);
    const cutoff = new Date(now - 30 * DAY);
    const run = (traceId: string, createdAt: Date) =>
      app.prisma.run.create({
        data: { workspaceId: workspace.id, evaluatorId: evaluator.id, traceId, outcome: "ok", completion: "quiet_period", groupSpanCount: 2, createdAt, scores: { create: [{ workspaceId: workspace.id, evaluatorId: evaluator.id, position: 0, name: "n", dataType: "NUMERIC", value: 2, numericValue: 2, higherIsBetter: true }] } },
      });
    const oldRun = await run("t-old", old);
    const newRun = await run("t-new", recent);
    await app.prisma.runHistory.create({ data: { id: randomUUID(), workspaceId: workspace.id, evaluatorId: evaluator.id, traceId: "t-old", outcome: "ok", createdAt: old, reason: "group_changed", supersededAt: old } });
    const schedule = (groupKey: string, lastSpanAt: Date, dueAt: Date | null) =>
      app.prisma.groupSchedule.create({ data: { workspaceId: workspace.id, evaluatorId: evaluator.id, targetType: "trace", groupKey, traceIds: [groupKey], firstSpanAt: lastSpanAt, lastSpanAt, quietPeriodMs: 30_000, maxWaitMs: 600_000, dueAt } });
    await schedule("t-old", old, null);
    await schedule("t-new", recent, null);
    await schedule("t-old-pending", old, new Date(now));

    expect(await deleteGroupBatch(app.prisma, workspace.id, cutoff, 100)).toEqual({ runs: 1, history: 1 });
    expect((await app.prisma.run.findMany({ where: { workspaceId: workspace.id } })).map((r) => r.id)).toEqual([newRun.id]);
    expect(await app.prisma.score.count({ where: { runId: oldRun.id } })).toBe(0);
    expect(await app.prisma.score.count({ where: { runId: newRun.id } })).toBe(1);
    expect(await app.prisma.runHistory.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect((await app.prisma.groupSchedule.findMany({ where: { workspaceId: workspace.id }, orderBy: { groupKey: "asc" } })).map((s) => s.groupKey)).toEqual(["t-new", "t-old-pending"]);
  });
});
