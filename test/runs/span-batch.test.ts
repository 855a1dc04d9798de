// Live evaluations queued one job per ingest batch (runs/span-batch.ts): an evaluator outside
// every dependency gets ONE job for a batch's spans, evaluators in a dependency keep a job per
// pair; the reconciler leaves pairs whose batch job is alive and re-queues them once it is gone;
// a batch job whose worker died in the sandbox is split into jobs of one pair; a batch processed
// again changes nothing.
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis } from "../../src/lib/redis.js";
import { evaluationJobId, spanBatchJobId } from "../../src/queues/registry.js";
import { spanKey } from "../../src/modules/spans/ingest-write.js";
import { chatSpan } from "../dependencies/helpers.js";
import { liveHarness, waitFor } from "./helpers.js";

const LENGTH = `def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="length", value=len(ctx.turns[-1]["content"]))])
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
let connection: ReturnType<typeof createRedis>;
let queue: Queue;
beforeAll(async () => {
  // No worker until the test starts it, and no periodic reconciler: the test runs passes over its
  // own workspace (no grace), leaving other test files' rows alone.
  h = await liveHarness({ startWorker: false, queues: ["evaluate-target", "evaluation-barrier"], label: "spanbatch", env: { RECONCILE_GRACE_MS: "0", RECONCILE_INTERVAL_MS: "0" } });
  connection = createRedis(h.app.config.REDIS_URL, "producer");
  queue = new Queue("evaluate-target", { connection, prefix: h.prefix });
});
afterAll(async () => {
  await queue.close();
  connection.disconnect();
  await h.close();
});

async function evaluator(ws: Awaited<ReturnType<typeof h.workspace>>, name: string, dependencies?: { evaluator: string }[]) {
  const template = await h.app.services.templates.createTemplate(ws.principal, { name, sourceCode: LENGTH });
  return h.app.services.evaluators.createEvaluator(ws.principal, { name, templateId: template.template.id, ...(dependencies ? { dependencies } : {}) });
}

describe("live evaluations queued per ingest batch", () => {
  it("one job per batch for an evaluator outside dependencies; the reconciler follows it; splits after a crash; exactly once", async () => {
    const ws = await h.workspace("batchjobs");
    const plain = await evaluator(ws, "Plain");
    const first = await evaluator(ws, "First");
    const second = await evaluator(ws, "Second", [{ evaluator: "First" }]);
    const replies = Array.from({ length: 30 }, (_, i) => `reply ${"x".repeat(i)}`);
    const result = await h.app.services.spans.ingestSpans(ws.principal, replies.map((r, i) => chatSpan(`b-${i}`, "t", r)));
    expect(result.evaluationsQueued).toBe(90);
    const ids = result.spans.map((s) => s.id);
    // The job id: the evaluator and a hash of the batch's (trace id, span id) keys.
    const batchId = spanBatchJobId(plain.id, replies.map((_, i) => spanKey(`b-${i}`, "t")));

    // The plain evaluator: one job holding every span; the dependency pair: a job per span (a flow for the dependent).
    expect((await queue.getJob(batchId))!.data).toEqual({ workspaceId: ws.workspace.id, evaluatorId: plain.id, targetType: "span", targetIds: ids });
    expect(await queue.getJob(evaluationJobId(ids[0]!, plain.id))).toBeUndefined();
    expect(await queue.getJobState(evaluationJobId(ids[0]!, first.id))).toBe("waiting");
    expect(await queue.getJobState(evaluationJobId(ids[0]!, second.id))).toBe("waiting-children");
    expect(await queue.getJobCounts("waiting")).toEqual({ waiting: 1 + 30 });
    const owed = await h.app.prisma.owedEvaluation.findMany({ where: { workspaceId: ws.workspace.id }, select: { evaluatorId: true, jobId: true } });
    expect(owed).toHaveLength(90);
    for (const row of owed) expect(row.jobId).toBe(row.evaluatorId === plain.id ? batchId : null);

    // The reconciler: pairs whose batch job is alive are left; once it is gone they are queued again, a job each.
    const requeues = async () =>
      (await h.app.prisma.owedEvaluation.findMany({ where: { workspaceId: ws.workspace.id }, select: { evaluatorId: true, requeues: true, jobId: true } }))
        .map((r) => `${r.evaluatorId === plain.id ? "plain" : "pair"} ${r.requeues} ${r.jobId === null ? "own job" : "batch job"}`)
        .sort();
    const scope = { workspaceId: ws.workspace.id };
    expect(await h.app.services.reconciler.reconcile(scope)).toMatchObject({ requeued: 0 });
    expect(await requeues()).toEqual([...Array(60).fill("pair 0 own job"), ...Array(30).fill("plain 0 batch job")]);
    await (await queue.getJob(batchId))!.remove();
    expect(await h.app.services.reconciler.reconcile(scope)).toMatchObject({ requeued: 30 });
    expect(await requeues()).toEqual([...Array(60).fill("pair 0 own job"), ...Array(30).fill("plain 1 own job")]);
    for (const id of ids) expect(await queue.getJobState(evaluationJobId(id, plain.id))).toBe("waiting");

    // A batch job that was in the sandbox when its worker died is split into jobs of one pair for
    // its spans without a run (here: a second workspace, its spans not run yet).
    const ws2 = await h.workspace("batchsplit");
    const plain2 = await evaluator(ws2, "Plain");
    const ingested = await h.app.services.spans.ingestSpans(ws2.principal, replies.slice(0, 5).map((r, i) => chatSpan(`c-${i}`, "t", r)));
    const ids2 = ingested.spans.map((s) => s.id);
    const payload2 = { workspaceId: ws2.workspace.id, evaluatorId: plain2.id, targetType: "span" as const, targetIds: ids2 };
    let entries = 0;
    const crashed = { attemptsMade: 0, opts: { attempts: 4 }, stalledCounter: 1, sandboxEntries: 1, enteredSandbox: async () => (entries += 1) };
    expect(await h.app.services.spanBatch(payload2, crashed)).toEqual({ split: 5 });
    expect(entries).toBe(0);
    for (const id of ids2) expect((await queue.getJob(evaluationJobId(id, plain2.id)))!.data).toEqual({ workspaceId: ws2.workspace.id, targetType: "span", targetId: id, evaluatorId: plain2.id });

    // Everything runs exactly once: the first workspace's 90 pairs, the second's 5 (from the split jobs and the batch job both).
    await h.startWorker();
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: { in: [ws.workspace.id, ws2.workspace.id] } } }), 95, 120_000);
    await waitFor(async () => ((await queue.getJobCounts("waiting", "active", "waiting-children")) as Record<string, number>).waiting === 0 ? 1 : 0, 1, 60_000);
    await new Promise((r) => setTimeout(r, 500));
    const pairs = await h.app.prisma.$queryRaw<{ n: bigint; distinct: bigint }[]>`
      SELECT count(*) AS n, count(DISTINCT ("spanId", "evaluatorId")) AS distinct FROM "Run" WHERE "workspaceId" IN (${ws.workspace.id}::uuid, ${ws2.workspace.id}::uuid)`;
    expect(pairs[0]).toEqual({ n: 95n, distinct: 95n });
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: plain.id }, include: { scores: true } });
    for (const run of runs) expect(run.scores[0]!.value).toBe(replies[ids.indexOf(run.spanId!)]!.length);

    // The batch processed again (a redelivery): nothing changes.
    const before = await h.app.prisma.run.findMany({ where: { evaluatorId: plain2.id }, orderBy: { id: "asc" } });
    const again = await h.app.services.spanBatch(payload2, { attemptsMade: 1, opts: { attempts: 4 } });
    expect(again).toEqual({ statuses: ["already-recorded", "already-recorded", "already-recorded", "already-recorded", "already-recorded"] });
    expect(await h.app.prisma.run.findMany({ where: { evaluatorId: plain2.id }, orderBy: { id: "asc" } })).toEqual(before);
  }, 240_000);
});
