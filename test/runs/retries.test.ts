// Exactly once (docs/evaluation.md § Exactly once): a retried job leaves one run; a sandbox fault is retried with backoff and
// recorded on the last attempt; a fault of the user's code is recorded at once and not retried.
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecutor } from "../../src/execution/index.js";
import { flakyExecutor } from "../flaky-executor.js";
import { createLogger } from "../../src/lib/logger.js";
import { createRedis } from "../../src/lib/redis.js";
import { SandboxFaultError } from "../../src/modules/runs/processor.js";
import { evaluationJobId, spanBatchJobId } from "../../src/queues/registry.js";
import { spanKey } from "../../src/modules/spans/ingest-write.js";
import { liveHarness, waitFor } from "./helpers.js";

const SCORE = `def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="turns", value=len(ctx.turns)), Score(name="nice", value=True)])
`;
const RAISES = `def evaluate(ctx):
    return {}["missing"]
`;


const real = createExecutor({ logger: createLogger("silent") });
const flaky = flakyExecutor(real);
let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ execution: flaky.executor });
});
afterAll(() => h.close());

async function setUp(label: string, source = SCORE) {
  const ws = await h.workspace(label);
  const template = await h.app.services.templates.createTemplate(ws.principal, { name: label, sourceCode: source });
  const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: label, templateId: template.template.id });
  return { ws, evaluator };
}

async function ingestOne(principal: { workspaceId: string; apiKeyId: string }, spanId = "s1") {
  const result = await h.app.services.spans.ingestSpans(principal, [{ traceId: "t1", spanId, name: "chat", kind: "chat", input: "hi", output: "hello there" }]);
  return result.spans[0]!.id;
}

describe("retries", () => {
  it("retries a sandbox fault with backoff and leaves one run that counts the attempts", async () => {
    const { ws, evaluator } = await setUp("flaky");
    flaky.state.failures = 1;
    const spanId = await ingestOne(ws.principal);
    await waitFor(() => h.app.prisma.run.count({ where: { spanId } }), 1, 60_000);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { spanId }, include: { scores: true } });
    expect(run).toMatchObject({ outcome: "ok", attempts: 2, evaluatorId: evaluator.id });
    expect(run.scores.map((s) => [s.name, s.value]).sort()).toEqual([["nice", true], ["turns", 2]]);
  });

  it("a job delivered again, or processed twice at once, never duplicates the run or its scores", async () => {
    const { ws, evaluator } = await setUp("duplicate");
    const spanId = await ingestOne(ws.principal);
    await waitFor(() => h.app.prisma.run.count({ where: { spanId } }), 1);
    const payload = { workspaceId: ws.workspace.id, targetType: "span" as const, targetId: spanId, evaluatorId: evaluator.id };
    // The same pair again under another job id (a redelivery after the kept job was removed).
    await h.app.queues.add("evaluate-target", payload, { jobId: `${evaluationJobId(spanId, evaluator.id)}-again` });
    // And twice at once, straight through the processor.
    const statuses = await Promise.all([h.app.services.runProcessor(payload, { attemptsMade: 0, opts: { attempts: 4 } }), h.app.services.runProcessor(payload, { attemptsMade: 1, opts: { attempts: 4 } })]);
    expect(statuses).toEqual(["already-recorded", "already-recorded"]);
    await new Promise((r) => setTimeout(r, 500));
    expect(await h.app.prisma.run.count({ where: { spanId } })).toBe(1);
    expect(await h.app.prisma.score.count({ where: { spanId } })).toBe(2);
    // The same span ingested again: the pair's job id is taken, nothing new is queued or run.
    await ingestOne(ws.principal);
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.app.prisma.run.count({ where: { spanId } })).toBe(1);
  });

  it("two processors racing on a new pair write one run (the unique index decides)", async () => {
    const { ws, evaluator } = await setUp("race");
    // Store the span without queueing its evaluation (the evaluator is disabled while it arrives).
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { enabled: false });
    const spanId = await ingestOne(ws.principal, "race-1");
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { enabled: true });
    const payload = { workspaceId: ws.workspace.id, targetType: "span" as const, targetId: spanId, evaluatorId: evaluator.id };
    const statuses = await Promise.all([0, 1, 2].map(() => h.app.services.runProcessor(payload, { attemptsMade: 0, opts: { attempts: 4 } })));
    expect(statuses.filter((s) => s === "recorded")).toHaveLength(1);
    expect(await h.app.prisma.run.count({ where: { spanId } })).toBe(1);
    expect(await h.app.prisma.score.count({ where: { spanId } })).toBe(2);
  });

  it("throws to retry a sandbox fault before the last attempt and records it on the last", async () => {
    const { ws, evaluator } = await setUp("fault");
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { enabled: false });
    const spanId = await ingestOne(ws.principal, "fault-1");
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { enabled: true });
    const payload = { workspaceId: ws.workspace.id, targetType: "span" as const, targetId: spanId, evaluatorId: evaluator.id };
    flaky.state.failures = 2;
    await expect(h.app.services.runProcessor(payload, { attemptsMade: 0, opts: { attempts: 4 } })).rejects.toBeInstanceOf(SandboxFaultError);
    expect(await h.app.prisma.run.count({ where: { spanId } })).toBe(0);
    expect(await h.app.services.runProcessor(payload, { attemptsMade: 3, opts: { attempts: 4 } })).toBe("recorded");
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { spanId } });
    expect(run).toMatchObject({ outcome: "sandbox_error", attempts: 4, errorType: "SandboxError", errorMessage: "runner died (injected)" });
  });

  it("records a fault of the user's code on the first attempt and completes the job (no retry)", async () => {
    const { ws, evaluator } = await setUp("user-fault", RAISES);
    const spanId = await ingestOne(ws.principal, "user-1");
    await waitFor(() => h.app.prisma.run.count({ where: { spanId } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { spanId } });
    expect(run).toMatchObject({ outcome: "user_error", attempts: 1, errorType: "KeyError", errorMessage: "'missing'" });
    expect(run.errorTraceback).toContain('File "<evaluator>", line 2, in evaluate');
    const connection = createRedis(h.app.config.REDIS_URL, "producer");
    const queue = new Queue("evaluate-target", { connection, prefix: h.prefix });
    try {
      // The ingest batch's job (one span here).
      const batchId = spanBatchJobId(evaluator.id, [spanKey("t1", "user-1")]);
      const job = await queue.getJob(batchId);
      await waitFor(async () => ((await job!.getState()) === "completed" ? 1 : 0), 1, 60_000);
      const done = (await queue.getJob(batchId))!;
      expect(done.failedReason ?? "").toBe("");
      expect(done.attemptsMade).toBeLessThanOrEqual(1); // one attempt: completed, not retried
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it("records a skipped run when the evaluator is archived after the span matched", async () => {
    const { ws, evaluator } = await setUp("archived");
    const spanId = await ingestOne(ws.principal, "arch-1");
    await waitFor(() => h.app.prisma.run.count({ where: { spanId } }), 1);
    await h.app.prisma.run.deleteMany({ where: { spanId } });
    await h.app.services.evaluators.deleteEvaluator(ws.principal, evaluator.id);
    const status = await h.app.services.runProcessor({ workspaceId: ws.workspace.id, targetType: "span" as const, targetId: spanId, evaluatorId: evaluator.id }, { attemptsMade: 0, opts: { attempts: 4 } });
    expect(status).toBe("recorded");
    expect(await h.app.prisma.run.findFirstOrThrow({ where: { spanId } })).toMatchObject({ outcome: "skipped", skipReason: "the evaluator was archived after the span was matched" });
  });
});
