// Retention under a live sweep (README § Retention): a workspace with spans, runs, scores and run
// history older than its retention; live spans keep arriving and being evaluated by the worker
// while the retention sweep (the real service, its clock moved forward instead of sleeping) deletes
// the old data in small batches. Afterwards the old rows are gone, the new ones all there, and
// every new span has its run and score.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/lib/clock.js";
import { createRetentionService } from "../../src/modules/retention/service.js";
import { retentionSettings } from "../../src/modules/retention/policy.js";
import { chatSpan } from "../dependencies/helpers.js";
import { liveHarness, waitFor } from "../runs/helpers.js";

const INGEST = `mutation($spans: [JSON!]!) { ingestSpans(input: { spans: $spans }) { evaluationsQueued } }`;
const DAY = 86_400_000;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "retention" });
});
afterAll(() => h.close());

describe("retention while live spans flow", () => {
  it("deletes old spans, runs, scores and history in batches while new spans are evaluated; no live run lost", async () => {
    const ws = await h.workspace("ret-live");
    const wsId = ws.workspace.id;
    const keyword = await h.app.services.templates.createTemplateFromStarter(ws.principal, "keyword-check");
    const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Sorry", templateId: keyword.template.id, params: { required: ["sorry"], mode: "any" } });
    await h.app.services.retention.setRetention(ws.principal, { retentionDays: 30 });

    // Old data: 40 spans evaluated live (a run and a score each), plus a history row per old run.
    const OLD = 40;
    for (let b = 0; b < OLD / 10; b++) {
      const res = await ws.gql(INGEST, { spans: Array.from({ length: 10 }, (_, i) => chatSpan(`old-${b}`, `s${i}`, "Sorry, no.")) });
      expect(res.data!.ingestSpans.evaluationsQueued).toBe(10);
    }
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), OLD);
    await waitFor(() => h.app.prisma.score.count({ where: { workspaceId: wsId } }), OLD);
    const oldSpanIds = (await h.app.prisma.span.findMany({ where: { workspaceId: wsId }, select: { id: true } })).map((s) => s.id);
    expect(oldSpanIds).toHaveLength(OLD);
    await h.app.prisma.$executeRaw`
      INSERT INTO "RunHistory" (id, "workspaceId", "evaluatorId", "spanId", outcome, "createdAt", "supersededAt", reason)
      SELECT gen_random_uuid(), "workspaceId", "evaluatorId", "spanId", outcome, "createdAt", now(), 'inputs_changed' FROM "Run" WHERE "spanId" = ANY(${oldSpanIds}::uuid[])`;

    // The cutoff: everything stored so far. The sweep's clock is 30 days past it, so it is exactly the cutoff.
    const boundary = (await h.app.prisma.$queryRaw<{ t: Date }[]>`SELECT clock_timestamp() AS t`)[0]!.t;
    const clock: Clock = { now: () => new Date(boundary.getTime() + 30 * DAY) };
    const retention = createRetentionService({
      prisma: h.app.prisma,
      logger: h.app.logger,
      clock,
      settings: retentionSettings(h.app.config),
      batchSize: 3,
      rateLimits: { ingestPerMinute: null, tryCodePerMinute: null, mutationsPerMinute: null, readsPerMinute: null },
      maxQueuedEvaluations: null,
    });
    expect((await retention.limits(ws.principal)).retention).toMatchObject({ days: 30, source: "workspace", cutoff: boundary });

    // Live spans flow while the sweep runs, pass after pass (a few batches each), until nothing is left.
    const NEW_BATCHES = 8;
    let ingesting = true;
    const live = (async () => {
      for (let b = 0; b < NEW_BATCHES; b++) {
        const res = await ws.gql(INGEST, { spans: Array.from({ length: 5 }, (_, i) => chatSpan(`new-${b}`, `s${i}`, i % 2 ? "Sorry, no." : "Sure.")) });
        expect(res.data!.ingestSpans.evaluationsQueued).toBe(5);
      }
      ingesting = false;
    })();
    const passes: Awaited<ReturnType<typeof retention.sweep>>[] = [];
    for (;;) {
      const pass = await retention.sweep({ workspaceId: wsId, maxBatches: 4 });
      passes.push(pass);
      if (!pass.more && pass.deleted.spans === 0 && pass.deleted.history === 0 && !ingesting) break;
    }
    await live;
    const NEW = NEW_BATCHES * 5;
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), NEW);

    // Several passes and batches: 40 spans at 3 per batch is 14 span batches (the last one short).
    const total = passes.reduce((a, p) => ({ spans: a.spans + p.deleted.spans, runs: a.runs + p.deleted.runs, scores: a.scores + p.deleted.scores, history: a.history + p.deleted.history, batches: a.batches + p.batches }), { spans: 0, runs: 0, scores: 0, history: 0, batches: 0 });
    expect(total).toMatchObject({ spans: OLD, runs: OLD, scores: OLD, history: OLD });
    expect(total.batches).toBeGreaterThanOrEqual(14);
    expect(passes.length).toBeGreaterThan(1);

    // Old rows gone; new ones intact: every new span has its run and its score.
    expect(await h.app.prisma.span.count({ where: { id: { in: oldSpanIds } } })).toBe(0);
    expect(await h.app.prisma.run.count({ where: { spanId: { in: oldSpanIds } } })).toBe(0);
    expect(await h.app.prisma.score.count({ where: { spanId: { in: oldSpanIds } } })).toBe(0);
    expect(await h.app.prisma.runHistory.count({ where: { workspaceId: wsId } })).toBe(0);
    const spans = await h.app.prisma.span.findMany({ where: { workspaceId: wsId }, select: { id: true, createdAt: true, _count: { select: { runs: true } } } });
    expect(spans).toHaveLength(NEW);
    expect(spans.every((s) => s.createdAt > boundary)).toBe(true);
    expect(spans.filter((s) => s._count.runs === 1)).toHaveLength(NEW);
    expect(await h.app.prisma.run.count({ where: { workspaceId: wsId } })).toBe(NEW);
    expect(await h.app.prisma.score.count({ where: { workspaceId: wsId } })).toBe(NEW);
    expect(await h.app.prisma.score.count({ where: { workspaceId: wsId, numericValue: 1 } })).toBe(NEW_BATCHES * 2);
    expect(await h.app.prisma.owedEvaluation.count({ where: { targetType: "span", targetId: { in: spans.map((s) => s.id) } } })).toBe(0);

    // History of a kept span superseded before the cutoff goes too; after it, it stays.
    const kept = spans[0]!.id;
    await h.app.prisma.$executeRaw`
      INSERT INTO "RunHistory" (id, "workspaceId", "evaluatorId", "spanId", outcome, "createdAt", "supersededAt", reason)
      SELECT gen_random_uuid(), "workspaceId", "evaluatorId", "spanId", outcome, "createdAt", ${new Date(boundary.getTime() - DAY)}, 'inputs_changed' FROM "Run" WHERE "spanId" = ${kept}::uuid
      UNION ALL
      SELECT gen_random_uuid(), "workspaceId", "evaluatorId", "spanId", outcome, "createdAt", now(), 'inputs_changed' FROM "Run" WHERE "spanId" = ${kept}::uuid`;
    const last = await retention.sweep({ workspaceId: wsId });
    expect(last.deleted).toEqual({ spans: 0, runs: 0, scores: 0, history: 1 });
    expect(await h.app.prisma.runHistory.count({ where: { workspaceId: wsId } })).toBe(1);
    expect(await h.app.prisma.span.count({ where: { workspaceId: wsId } })).toBe(NEW);
  }, 180_000);
});
