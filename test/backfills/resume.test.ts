// A backfill whose queued jobs Redis lost (restarted without persistence) is resumed: the
// resumer queues its unfinished batches again and it completes with one run per span.
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createBackfillResumer } from "../../src/modules/backfills/resume.js";
import { startWorkers } from "../../src/worker.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

let app: App;
let prefix: string;
beforeAll(() => {
  prefix = `oodle-test-bf-resume-${randomUUID().slice(0, 8)}`;
  app = createTestApp({ QUEUE_PREFIX: prefix });
});
afterAll(async () => {
  await app?.close();
});

describe("resuming a backfill whose jobs were lost", () => {
  it("queues the unfinished batches again, and the backfill completes exactly once per span", { timeout: 300_000 }, async () => {
    const ws = await createTestWorkspace(app, "bf-resume");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const start = new Date(Date.now() - 3_600_000);
    const spans = Array.from({ length: 30 }, (_, i) => ({ traceId: `t${i}`, spanId: "s", name: "chat", startTime: new Date(start.getTime() + i * 1000).toISOString(), input: [{ role: "user", content: "q" }], output: "a reply" }));
    await app.services.spans.ingestSpans(principal, spans);
    const { template } = await app.services.templates.createTemplate(principal, { name: "Has reply", sourceCode: 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="ok", value=True)])\n' });
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Has reply", templateId: template.id });
    const { backfill } = await app.services.backfills.createBackfill(principal, { evaluatorId: evaluator.id, windowStart: start, batchSize: 10 });

    // Redis loses every job before a worker took one.
    const queue = new Queue("backfill-batch", { connection: app.redis, prefix });
    await queue.obliterate({ force: true });
    await queue.close();
    const resumer = createBackfillResumer({ prisma: app.prisma, queues: app.queues, logger: app.logger, graceMs: 0, workspaceIds: [ws.workspace.id] });
    expect(await resumer.resume()).toEqual({ requeued: 3, failed: 0 });
    // Their jobs exist again: a second pass changes nothing.
    expect(await resumer.resume()).toEqual({ requeued: 0, failed: 0 });

    const workers = await startWorkers(app, { queues: ["backfill-batch"], reconcileIntervalMs: 0 });
    try {
      for (const deadline = Date.now() + 240_000; ; ) {
        const row = await app.prisma.backfill.findUniqueOrThrow({ where: { id: backfill.id } });
        if (row.status === "completed") break;
        if (Date.now() > deadline) throw new Error(`still ${row.status}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      await workers.close();
    }
    const runs = await app.prisma.run.findMany({ where: { evaluatorId: evaluator.id } });
    expect(runs).toHaveLength(30);
    expect(runs.every((r) => r.backfillId === backfill.id && r.outcome === "ok")).toBe(true);
  });
});

describe("a batch processed twice", () => {
  it("records nothing the second time (a retried job, or a worker that took the batch over)", { timeout: 300_000 }, async () => {
    const ws = await createTestWorkspace(app, "bf-twice");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const start = new Date(Date.now() - 3_600_000);
    const spans = Array.from({ length: 15 }, (_, i) => ({ traceId: `t${i}`, spanId: "s", name: "chat", startTime: new Date(start.getTime() + i * 1000).toISOString(), input: [{ role: "user", content: "q" }], output: "a reply" }));
    await app.services.spans.ingestSpans(principal, spans);
    const { template } = await app.services.templates.createTemplate(principal, { name: "Twice", sourceCode: 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="ok", value=True)])\n' });
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Twice", templateId: template.id });
    // With rerun, too: a pair that already has this backfill's run is not run again.
    const { backfill } = await app.services.backfills.createBackfill(principal, { evaluatorId: evaluator.id, windowStart: start, batchSize: 10, rerun: true });
    // No worker runs these jobs: the processor is called as two workers would.
    const [a, b] = await Promise.all([
      app.services.backfillBatch({ backfillId: backfill.id, batch: 0 }, { attempt: 1, last: false }),
      app.services.backfillBatch({ backfillId: backfill.id, batch: 0 }, { attempt: 1, last: false }),
    ]);
    expect(a.recorded + b.recorded).toBe(10);
    const again = await app.services.backfillBatch({ backfillId: backfill.id, batch: 0 }, { attempt: 2, last: false });
    expect(again).toMatchObject({ recorded: 0, superseded: 0, skipped: 10, stopped: false });
    await app.services.backfillBatch({ backfillId: backfill.id, batch: 1 }, { attempt: 1, last: false });
    expect(await app.prisma.run.count({ where: { evaluatorId: evaluator.id } })).toBe(15);
    expect(await app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } })).toBe(0);
    expect(await app.prisma.backfill.findUniqueOrThrow({ where: { id: backfill.id } })).toMatchObject({ status: "completed" });
    expect(await app.services.backfills.progress(backfill)).toMatchObject({ spansDone: 15, batchesDone: 2, runsRecorded: 15, pairsSkipped: 0 });
  });
});
