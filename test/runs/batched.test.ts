// Batched live evaluation (docs/evaluation.md § Exactly once): a burst of 2,000 spans × 3 evaluators (one
// gated on another) is scored exactly once per pair in dependency order; a batch delivered again
// changes nothing; a user fault or a sandbox fault in one item of a batch does not fail the others.
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecutor, type ExecuteItem, type ExecuteKey, type Executor, type ItemResult } from "../../src/execution/index.js";
import { createLogger } from "../../src/lib/logger.js";
import { createRedis } from "../../src/lib/redis.js";
import { SandboxFaultError } from "../../src/modules/runs/processor.js";
import { evaluationJobId, spanBatchJobId } from "../../src/queues/registry.js";
import { explanationLine } from "../../src/cli/commands/evaluators.js";
import { spanKey } from "../../src/modules/spans/ingest-write.js";
import { chatSpan } from "../dependencies/helpers.js";
import { liveHarness, waitFor } from "./helpers.js";

const JSON_CONTENT = `from oodle_eval.v1 import text


def evaluate(ctx):
    data = text.extract_json(text.reply(ctx))
    return EvaluationResult(scores=[Score(name="has_sources", value=isinstance(data, dict) and bool(data.get("sources")), data_type="BOOLEAN")])
`;
/** Fails with ValueError on the reply "boom", scores the reply's length otherwise. */
const BOOM = `from oodle_eval.v1 import text


def evaluate(ctx):
    reply = text.reply(ctx)
    if reply == "boom":
        raise ValueError("boom")
    return EvaluationResult(scores=[Score(name="length", value=len(reply))])
`;

/** The real executor, but items whose reply is "flaky" answer sandbox_error while `faults` > 0 (one per item). */
function flakyItems(real: Executor) {
  const state = { faults: 0, largestCall: 0 };
  const executor: Executor = {
    limits: real.limits,
    ready: () => real.ready(),
    close: () => real.close(),
    async execute(key: ExecuteKey, items: ExecuteItem[]) {
      state.largestCall = Math.max(state.largestCall, items.length);
      const results = await real.execute(key, items);
      return results.map((result, i): ItemResult => {
        if (JSON.stringify(items[i]!.document).includes('"flaky"') && state.faults > 0) {
          state.faults -= 1;
          return { outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "SandboxError", message: "runner died (injected)", traceback: "" } };
        }
        return result;
      });
    },
  };
  return { executor, state };
}

const flaky = flakyItems(createExecutor({ logger: createLogger("silent") }));
let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ execution: flaky.executor, queues: ["evaluate-target", "evaluation-barrier"], label: "batched" });
});
afterAll(() => h.close());

const REPLIES = ['{"answer": "42", "sources": ["doc-1"]}', "Sorry, I cannot answer that.", "{not json"];

describe("batched live evaluation", () => {
  it("scores a burst of 2,000 spans × 3 evaluators (one gated on another) exactly once per pair, in order", async () => {
    const ws = await h.workspace("burst");
    const { templates, evaluators, spans } = h.app.services;
    const shape = await templates.createTemplateFromStarter(ws.principal, "json-shape");
    const keyword = await templates.createTemplateFromStarter(ws.principal, "keyword-check");
    const content = await templates.createTemplate(ws.principal, { name: "JSON content", sourceCode: JSON_CONTENT });
    const check = await evaluators.createEvaluator(ws.principal, { name: "JSON check", templateId: shape.template.id });
    const words = await evaluators.createEvaluator(ws.principal, { name: "Refusal words", templateId: keyword.template.id, params: { required: ["sorry", "cannot"], mode: "any" } });
    const gated = await evaluators.createEvaluator(ws.principal, { name: "JSON content", templateId: content.template.id, dependencies: [{ evaluator: "JSON check", gate: { score: "is_json" } }] });
    const N = 2_000;
    const ids: string[] = [];
    for (let from = 0; from < N; from += 1_000) {
      const result = await spans.ingestSpans(ws.principal, Array.from({ length: 1_000 }, (_, k) => chatSpan(`burst-${from + k}`, "s", REPLIES[(from + k) % 3]!)));
      expect(result.evaluationsQueued).toBe(3_000);
      ids.push(...result.spans.map((s) => s.id));
    }
    const where = { workspaceId: ws.workspace.id };
    await waitFor(() => h.app.prisma.run.count({ where }), 3 * N, 240_000);
    await new Promise((r) => setTimeout(r, 500)); // nothing more arrives
    const pairs = await h.app.prisma.$queryRaw<{ n: bigint; distinct: bigint }[]>`
      SELECT count(*) AS n, count(DISTINCT ("spanId", "evaluatorId")) AS distinct FROM "Run" WHERE "workspaceId" = ${ws.workspace.id}::uuid`;
    expect(pairs[0]).toEqual({ n: 6_000n, distinct: 6_000n });
    const runs = await h.app.prisma.run.findMany({ where, include: { scores: { orderBy: { position: "asc" } } } });
    const index = new Map(ids.map((id, i) => [id, i]));
    const checks = new Map(runs.filter((r) => r.evaluatorId === check.id).map((r) => [r.spanId!, r]));
    for (const run of runs) {
      const i = index.get(run.spanId!)!;
      if (run.evaluatorId === words.id) expect(run.scores[0]!.value).toBe(i % 3 === 1);
      if (run.evaluatorId === check.id) expect(run.scores.find((s) => s.name === "is_json")!.value).toBe(i % 3 === 0);
      if (run.evaluatorId !== gated.id) continue;
      const dep = checks.get(run.spanId!)!;
      expect(run.startedAt!.getTime()).toBeGreaterThanOrEqual(dep.finishedAt!.getTime());
      expect(run.inputRunIds).toEqual({ [check.id]: dep.id });
      if (i % 3 === 0) expect([run.outcome, run.scores.map((s) => [s.name, s.value])]).toEqual(["ok", [["has_sources", true]]]);
      else expect([run.outcome, run.skipReason]).toEqual(["skipped", 'gate on "JSON check" score "is_json": did not pass (value false)']);
    }
    // Why "JSON content" did not score span 1: its rule matched, its run was skipped by the gate
    // (explainMatch carries the run, and the CLI and MCP line says so).
    const explained = await h.app.services.spans.explainMatch(ws.workspace.id, ids[1]!, gated.id);
    expect([explained.decision.matched, explained.run?.outcome, explained.run?.skipReason]).toEqual([true, "skipped", 'gate on "JSON check" score "is_json": did not pass (value false)']);
    expect(explanationLine({ ...explained.decision, reason: null, run: explained.run }).split("\n")).toEqual([
      `matches: ${explained.decision.detail}; its run: skipped (gate on "JSON check" score "is_json": did not pass (value false))`,
      "  ok  enabled: the evaluator is enabled",
      '  ok  kind: the span\'s kind is "chat"',
      "  ok  sampling: every span is sampled (rate 1)",
    ]);
    // Every owed evaluation was settled by the write that recorded its run.
    expect(await h.app.prisma.owedEvaluation.count({ where })).toBe(0);
    // The burst was batched: runner calls of more than one item, counted in the batch-size metric.
    expect(flaky.state.largestCall).toBeGreaterThan(1);
    const metric = await h.app.metrics.registry.getSingleMetricAsString("oodle_live_batch_size");
    const count = Number(/oodle_live_batch_size_count (\d+)/.exec(metric)![1]);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(6_000);
  }, 300_000);

  it("a batch delivered again changes nothing; a user fault in one item does not fail the others", async () => {
    const ws = await h.workspace("again");
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Boom", sourceCode: BOOM });
    const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Boom", templateId: template.template.id });
    const replies = Array.from({ length: 40 }, (_, i) => (i === 17 ? "boom" : `reply number ${i}`));
    const result = await h.app.services.spans.ingestSpans(ws.principal, replies.map((r, i) => chatSpan(`again-${i}`, "s", r)));
    const ids = result.spans.map((s) => s.id);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 40);
    const before = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, include: { scores: true }, orderBy: { id: "asc" } });
    expect(before.filter((r) => r.outcome === "ok")).toHaveLength(39);
    const boom = before.find((r) => r.spanId === ids[17])!;
    expect([boom.outcome, boom.errorType, boom.errorMessage, boom.attempts]).toEqual(["user_error", "ValueError", "boom", 1]);
    for (const run of before.filter((r) => r.outcome === "ok")) expect(run.scores.map((s) => s.value)).toEqual([`reply number ${ids.indexOf(run.spanId!)}`.length]);
    // The ingest batch was ONE job for this evaluator (it takes part in no dependency), and it
    // completed on its first attempt, the failing item included; no job of a single pair was made.
    const connection = createRedis(h.app.config.REDIS_URL, "producer");
    const queue = new Queue("evaluate-target", { connection, prefix: h.prefix });
    try {
      const batchId = spanBatchJobId(evaluator.id, replies.map((_, i) => spanKey(`again-${i}`, "s")));
      const job = (await queue.getJob(batchId))!;
      expect(job.data).toEqual({ workspaceId: ws.workspace.id, evaluatorId: evaluator.id, targetType: "span", targetIds: ids });
      await waitFor(async () => ((await job.getState()) === "completed" ? 1 : 0), 1, 10_000);
      expect((await queue.getJob(batchId))!.attemptsMade).toBeLessThanOrEqual(1);
      for (const id of ids) expect(await queue.getJob(evaluationJobId(id, evaluator.id))).toBeUndefined();
    } finally {
      await queue.close();
      connection.disconnect();
    }
    // The same 40 jobs again, at once (one batch), as a retry or a redelivery would: nothing changes.
    const statuses = await Promise.all(ids.map((spanId) => h.app.services.runProcessor({ workspaceId: ws.workspace.id, targetType: "span" as const, targetId: spanId, evaluatorId: evaluator.id }, { attemptsMade: 1, opts: { attempts: 4 } })));
    expect(new Set(statuses)).toEqual(new Set(["already-recorded"]));
    const after = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, include: { scores: true }, orderBy: { id: "asc" } });
    expect(after).toEqual(before);
  }, 120_000);

  it("a sandbox fault in one item retries that job alone; the retried batch redoes nothing else", async () => {
    const ws = await h.workspace("fault");
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Boom", sourceCode: BOOM });
    const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Boom", templateId: template.template.id, enabled: false });
    const replies = Array.from({ length: 20 }, (_, i) => (i === 5 ? "flaky" : `reply ${i}`));
    const ids = (await h.app.services.spans.ingestSpans(ws.principal, replies.map((r, i) => chatSpan(`fault-${i}`, "s", r)))).spans.map((s) => s.id);
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { enabled: true });
    flaky.state.faults = 1;
    const job = { attemptsMade: 0, opts: { attempts: 4 } };
    const first = await Promise.allSettled(ids.map((spanId) => h.app.services.runProcessor({ workspaceId: ws.workspace.id, targetType: "span" as const, targetId: spanId, evaluatorId: evaluator.id }, job)));
    expect(first.filter((s) => s.status === "fulfilled").map((s) => (s as PromiseFulfilledResult<string>).value)).toEqual(Array(19).fill("recorded"));
    expect((first[5] as PromiseRejectedResult).reason).toBeInstanceOf(SandboxFaultError);
    expect(await h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } })).toBe(19);
    const kept = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, orderBy: { id: "asc" } });
    // The whole batch retried (second attempt): only the faulted item runs.
    const second = await Promise.all(ids.map((spanId) => h.app.services.runProcessor({ workspaceId: ws.workspace.id, targetType: "span" as const, targetId: spanId, evaluatorId: evaluator.id }, { attemptsMade: 1, opts: { attempts: 4 } })));
    expect(second.filter((s) => s === "recorded")).toHaveLength(1);
    expect(second[5]).toBe("recorded");
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, orderBy: { id: "asc" } });
    expect(runs.filter((r) => r.spanId !== ids[5])).toEqual(kept);
    expect(runs.find((r) => r.spanId === ids[5])).toMatchObject({ outcome: "ok", attempts: 2 });
  }, 120_000);
});
