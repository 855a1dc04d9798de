// Backfills (docs/evaluation.md § Backfills): an evaluator run again over 1,000 stored spans through the real API
// (yoga.fetch), BullMQ queue, worker, sandbox, Postgres and Redis — completes, skips spans already
// evaluated, re-runs them when asked while keeping history, and can be cancelled half way.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import type { Principal } from "../../src/lib/principal.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { samplingDraw } from "../../src/modules/spans/matching.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

/** A reply is "long" past 40 characters; version 2 of the template moves the bar to 60. */
const LONG_REPLY = (at: number) => `from oodle_eval.v1 import text

def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="long_reply", value=len(text.reply(ctx)) > ${at})])
`;
/** The same check, slow on purpose (20 ms per span), for cancelling half way. */
const SLOW = `import time
from oodle_eval.v1 import text

def evaluate(ctx):
    time.sleep(0.02)
    return EvaluationResult(scores=[Score(name="long_reply", value=len(text.reply(ctx)) > 40)])
`;

const WINDOW_START = new Date("2026-11-20T00:00:00Z");
/** The reply of span i: 10 to 89 characters, so "long" is decided by hand below. */
const reply = (i: number) => `reply ${String(i).padStart(3, "0")} ${"x".repeat(i % 80)}`;
const isLong = (i: number, at: number) => reply(i).length > at;
const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");

let app: App;
let workers: Workers;
let gql: ReturnType<typeof graphqlClient>;
beforeAll(async () => {
  app = createTestApp({ QUEUE_PREFIX: `oodle-test-bf-${randomUUID().slice(0, 8)}` });
  workers = await startWorkers(app, { queues: ["backfill-batch"] });
  gql = graphqlClient(app);
}, 120_000);
afterAll(async () => {
  await workers?.close();
  await app?.close();
});

/** A workspace with 1,000 chat spans in the window (span i starts i seconds after it), plus 50 tool spans and 50 old chat spans that no backfill may read. */
async function workspaceWithSpans(label: string): Promise<{ principal: Principal; key: string; spanIds: string[] }> {
  const ws = await createTestWorkspace(app, label);
  const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
  const chat = Array.from({ length: 1000 }, (_, i) => ({
    traceId: `t${Math.floor(i / 4)}`,
    spanId: `s${i}`,
    name: "chat.completion",
    startTime: new Date(WINDOW_START.getTime() + i * 1000).toISOString(),
    input: [{ role: "user", content: `question ${i}` }],
    output: reply(i),
  }));
  const others = [
    ...Array.from({ length: 50 }, (_, i) => ({ traceId: `tool${i}`, spanId: "tool", name: "search", kind: "tool", startTime: new Date(WINDOW_START.getTime() + i * 1000).toISOString(), input: "q", output: reply(i) })),
    ...Array.from({ length: 50 }, (_, i) => ({ traceId: `old${i}`, spanId: "old", name: "chat.completion", startTime: new Date("2026-08-01T00:00:00Z").toISOString(), input: [{ role: "user", content: "q" }], output: reply(i) })),
  ];
  const a = await app.services.spans.ingestSpans(principal, chat);
  const b = await app.services.spans.ingestSpans(principal, others);
  expect(a.rejected).toEqual([]);
  expect(b.rejected).toEqual([]);
  return { principal, key: ws.secret, spanIds: a.spans.map((s) => s.id) };
}

const BACKFILL = `id name status spanCount rerun error
  progress { spansTotal spansDone batchesTotal batchesDone runsRecorded pairsSkipped runsSuperseded fraction }
  summary { evaluatorName name count passed passRate mean }
  runsByOutcome { evaluatorName outcome count }
  evaluators { source evaluator { name } templateVersion { version } }`;
const CREATE = `mutation($input: CreateBackfillInput!) { createBackfill(input: $input) { backfill { ${BACKFILL} } estimate { spans runs reruns } } }`;
const ESTIMATE = `query($input: BackfillInput!) { estimateBackfill(input: $input) { spans runs reruns evaluators { name source readBy spansMatched alreadyEvaluated toRun } } }`;
const GET = `query($id: ID!) { backfill(id: $id) { ${BACKFILL} } }`;
const CANCEL = `mutation($id: ID!) { cancelBackfill(input: {id: $id}) { backfill { ${BACKFILL} } } }`;

async function ok<T = any>(query: string, variables: Record<string, unknown>, key: string): Promise<T> {
  const r = await gql.request<T>(query, variables, key);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data!;
}

/** Polls the backfill until it is no longer queued or running. */
async function finished(id: string, key: string, timeoutMs = 300_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { backfill } = await ok(GET, { id }, key);
    if (backfill.status !== "queued" && backfill.status !== "running") return backfill;
    if (Date.now() > deadline) throw new Error(`backfill still ${backfill.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe("a backfill over 1,000 stored spans", () => {
  it("completes, skips spans already evaluated, re-runs them when asked keeping history, and the estimate matches what ran", { timeout: 600_000 }, async () => {
    const { principal, key, spanIds } = await workspaceWithSpans("bf");
    const { template } = await app.services.templates.createTemplate(principal, { name: "Long reply", sourceCode: LONG_REPLY(40) });
    // Created after the spans arrived: nothing ran live, the backfill is the only way to score them.
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Long reply", templateId: template.id });
    const base = { evaluatorId: gid("Evaluator", evaluator.id), windowStart: WINDOW_START.toISOString(), batchSize: 100 };

    // 1. The first 300 spans: the estimate, then the run.
    const first = await ok(ESTIMATE, { input: { ...base, maxSpans: 300 } }, key);
    expect(first.estimateBackfill).toMatchObject({ spans: 300, runs: 300, reruns: 0, evaluators: [{ name: "Long reply", source: "evaluator", spansMatched: 300, alreadyEvaluated: 0, toRun: 300 }] });
    const b1 = (await ok(CREATE, { input: { ...base, maxSpans: 300, name: "first 300" } }, key)).createBackfill.backfill;
    expect(b1).toMatchObject({ name: "first 300", status: "queued", spanCount: 300 });
    const done1 = await finished(b1.id, key);
    expect(done1.status).toBe("completed");
    expect(done1.progress).toMatchObject({ spansTotal: 300, spansDone: 300, batchesTotal: 3, batchesDone: 3, runsRecorded: 300, pairsSkipped: 0, fraction: 1 });
    // One snapshot: a batch whose runs are written but whose row is not (yet) counts in neither
    // spansDone nor runsRecorded, so the two agree for one evaluator (the trial saw 20 spans, 21 runs).
    const last = await app.prisma.backfillBatch.findFirstOrThrow({ where: { backfillId: fromGid(b1.id) }, orderBy: { batch: "desc" } });
    await app.prisma.backfillBatch.delete({ where: { backfillId_batch: { backfillId: last.backfillId, batch: last.batch } } });
    expect((await ok(GET, { id: b1.id }, key)).backfill.progress).toMatchObject({ spansDone: 200, batchesDone: 2, runsRecorded: 200, pairsSkipped: 0 });
    await app.prisma.backfillBatch.create({ data: last });

    // 2. All 1,000 in the window (not the tool spans, not the old ones): 300 are skipped, 700 run.
    const all = await ok(ESTIMATE, { input: base }, key);
    expect(all.estimateBackfill).toMatchObject({ spans: 1000, runs: 700, evaluators: [{ spansMatched: 1000, alreadyEvaluated: 300, toRun: 700 }] });
    const b2 = (await ok(CREATE, { input: base }, key)).createBackfill.backfill;
    const done2 = await finished(b2.id, key);
    expect(done2.status).toBe("completed");
    expect(done2.progress).toMatchObject({ spansTotal: 1000, spansDone: 1000, batchesDone: 10, runsRecorded: 700, pairsSkipped: 300, runsSuperseded: 0 });
    const runs = await app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, select: { spanId: true, backfillId: true, outcome: true } });
    expect(runs).toHaveLength(1000);
    expect(new Set(runs.map((r) => r.spanId)).size).toBe(1000);
    const byBackfill = await app.prisma.run.groupBy({ by: ["backfillId"], where: { evaluatorId: evaluator.id }, _count: true });
    expect(Object.fromEntries(byBackfill.map((g) => [g.backfillId, g._count]))).toEqual({ [fromGid(b1.id)]: 300, [fromGid(b2.id)]: 700 });
    expect(runs.every((r) => r.outcome === "ok")).toBe(true);
    // The summary, worked out by hand: spans 300..999 are the ones B2 ran.
    const long2 = Array.from({ length: 700 }, (_, k) => k + 300).filter((i) => isLong(i, 40)).length;
    expect(done2.summary).toEqual([{ evaluatorName: "Long reply", name: "long_reply", count: 700, passed: long2, passRate: long2 / 700, mean: long2 / 700 }]);
    expect(done2.runsByOutcome).toEqual([{ evaluatorName: "Long reply", outcome: "ok", count: 700 }]);
    // The same evaluator again without rerun: nothing to do.
    expect((await ok(ESTIMATE, { input: base }, key)).estimateBackfill).toMatchObject({ spans: 1000, runs: 0 });

    // 3. Version 2 moves the bar to 60; a rerun on version 2 replaces every run and keeps the earlier one.
    await app.services.templates.updateTemplate(principal, template.id, { sourceCode: LONG_REPLY(60) });
    const rerun = { ...base, rerun: true, templateVersion: 2 };
    expect((await ok(ESTIMATE, { input: rerun }, key)).estimateBackfill).toMatchObject({ spans: 1000, runs: 1000, reruns: 1000 });
    const b3 = (await ok(CREATE, { input: rerun }, key)).createBackfill.backfill;
    expect(b3.evaluators).toEqual([{ source: "evaluator", evaluator: { name: "Long reply" }, templateVersion: { version: 2 } }]);
    const done3 = await finished(b3.id, key);
    expect(done3.status).toBe("completed");
    expect(done3.progress).toMatchObject({ runsRecorded: 1000, runsSuperseded: 1000, pairsSkipped: 0 });
    const long3 = Array.from({ length: 1000 }, (_, i) => i).filter((i) => isLong(i, 60)).length;
    expect(done3.summary).toEqual([{ evaluatorName: "Long reply", name: "long_reply", count: 1000, passed: long3, passRate: long3 / 1000, mean: long3 / 1000 }]);
    // Still one run per (span, evaluator); 1,000 history rows, 300 written by B1 and 700 by B2.
    expect(await app.prisma.run.count({ where: { evaluatorId: evaluator.id } })).toBe(1000);
    expect(await app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } })).toBe(1000);
    expect(await app.prisma.runHistory.count({ where: { supersededByBackfillId: fromGid(b3.id), backfillId: fromGid(b1.id) } })).toBe(300);
    expect(await app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id, reason: "backfill_rerun" } })).toBe(1000);
    // The earlier backfills' summaries still count their runs (from history).
    expect((await ok(GET, { id: b2.id }, key)).backfill.summary[0]).toMatchObject({ count: 700, passed: long2 });

    // The newest run is the one read: span 50 (a 60-character reply) is long at 40 and not at 60.
    expect([isLong(50, 40), isLong(50, 60)]).toEqual([true, false]);
    const read = await ok(
      `query($id: ID!) { span(id: $id) { scores { name value } runs { outcome backfill { id } templateVersion { version } history { outcome scores backfill { id } supersededBy { id } } } } }`,
      { id: gid("Span", spanIds[50]!) },
      key,
    );
    expect(read.span.scores).toEqual([{ name: "long_reply", value: false }]);
    expect(read.span.runs).toHaveLength(1);
    expect(read.span.runs[0]).toMatchObject({ outcome: "ok", backfill: { id: b3.id }, templateVersion: { version: 2 } });
    expect(read.span.runs[0].history).toHaveLength(1);
    expect(read.span.runs[0].history[0]).toMatchObject({ outcome: "ok", backfill: { id: b1.id }, supersededBy: { id: b3.id } });
    expect(read.span.runs[0].history[0].scores).toMatchObject([{ name: "long_reply", value: true, dataType: "BOOLEAN", position: 0 }]);

    // A finished backfill cannot be cancelled (409).
    const refused = await gql.request(CANCEL, { id: b3.id }, key);
    expect(refused.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    expect(refused.status).toBe(409);
  });
});

function fromGid(id: string): string {
  return Buffer.from(id, "base64").toString("utf8").split(":")[1]!;
}

describe("cancelling a backfill half way", () => {
  it("stops it: status cancelled, fewer runs than spans, and no run added after the cancel", { timeout: 600_000 }, async () => {
    const { principal, key } = await workspaceWithSpans("bf-cancel");
    const { template } = await app.services.templates.createTemplate(principal, { name: "Slow", sourceCode: SLOW });
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Slow", templateId: template.id });
    const input = { evaluatorId: gid("Evaluator", evaluator.id), windowStart: WINDOW_START.toISOString(), batchSize: 50 };
    const created = (await ok(CREATE, { input }, key)).createBackfill;
    expect(created.estimate).toMatchObject({ spans: 1000, runs: 1000 });
    const id = created.backfill.id;

    // The workspace's limit: two queued or running backfills at once.
    const second = (await ok(CREATE, { input: { ...input, maxSpans: 10 } }, key)).createBackfill.backfill;
    const third = await gql.request(CREATE, { input: { ...input, maxSpans: 10 } }, key);
    expect(third.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    expect((await ok(`{ backfillLimits { active maxConcurrent } }`, {}, key)).backfillLimits).toEqual({ active: 2, maxConcurrent: 2 });

    // Wait until a few batches have finished, then cancel.
    for (const deadline = Date.now() + 300_000; ; ) {
      const { backfill } = await ok(GET, { id }, key);
      if (backfill.progress.batchesDone >= 3) break;
      if (Date.now() > deadline) throw new Error("no progress");
      await new Promise((r) => setTimeout(r, 100));
    }
    const cancelled = (await ok(CANCEL, { id }, key)).cancelBackfill.backfill;
    expect(cancelled.status).toBe("cancelled");
    const atCancel = await app.prisma.run.count({ where: { evaluatorId: evaluator.id } });
    expect(atCancel).toBeGreaterThanOrEqual(150);
    expect(atCancel).toBeLessThan(1000);
    expect((await ok(CANCEL, { id: second.id }, key)).cancelBackfill.backfill.status).toBe("cancelled");
    // Cancelling again is harmless.
    expect((await ok(CANCEL, { id }, key)).cancelBackfill.backfill.status).toBe("cancelled");

    // Long enough for several more batches had it gone on: nothing is added.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await app.prisma.run.count({ where: { evaluatorId: evaluator.id } })).toBe(atCancel);
    const after = (await ok(GET, { id }, key)).backfill;
    expect(after.status).toBe("cancelled");
    expect(after.progress.runsRecorded).toBe(atCancel);
    expect(after.progress.batchesDone).toBeLessThan(20);
    const list = await ok(`{ backfills(first: 10, status: cancelled) { edges { node { id status } } } }`, {}, key);
    expect(list.backfills.edges.map((e: any) => e.node.id).sort()).toEqual([id, second.id].sort());
  });
});

describe("backfill input rules", () => {
  it("refuses a window over 90 days, one that ends in the future and a sample rate of 0, naming the field", { timeout: 120_000 }, async () => {
    const ws = await createTestWorkspace(app, "bf-rules");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const { template } = await app.services.templates.createTemplate(principal, { name: "Long reply", sourceCode: LONG_REPLY(40) });
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Long reply", templateId: template.id });
    const issuesOf = async (input: Record<string, unknown>) => {
      const r = await gql.request(ESTIMATE, { input: { evaluatorId: gid("Evaluator", evaluator.id), ...input } }, ws.secret);
      expect(r.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
      return r.errors![0]!.extensions!.issues;
    };
    expect(await issuesOf({ windowStart: "2026-08-01T00:00:00Z", windowEnd: "2026-11-01T00:00:00Z" })).toEqual([{ path: "windowStart", message: "the window must be at most 90 days" }]);
    expect(await issuesOf({ windowStart: "2026-11-01T00:00:00Z", windowEnd: new Date(Date.now() + 3_600_000).toISOString() })).toEqual([{ path: "windowEnd", message: "is in the future: a backfill reads spans that already arrived" }]);
    expect(await issuesOf({ windowStart: "2026-11-01T00:00:00Z", sampleRate: 0 })).toEqual([{ path: "sampleRate", message: "must be above 0" }]);
    expect(await issuesOf({ windowStart: "2026-11-01T00:00:00Z", templateVersion: 7 })).toEqual([{ path: "templateVersion", message: 'template "Long reply" has no version 7 (latest 1)' }]);
  });
});

describe("a backfill with its dependencies", () => {
  it("runs the dependency first where its own rule matches, then the evaluator with the dependency's scores and gate", { timeout: 600_000 }, async () => {
    const { principal, key } = await workspaceWithSpans("bf-deps");
    const hasReply = await app.services.templates.createTemplate(principal, {
      name: "Has reply",
      sourceCode: 'from oodle_eval.v1 import text\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="has_reply", value=len(text.reply(ctx)) > 0)])\n',
    });
    // The dependency samples half of the spans live; a backfill applies the same deterministic rule.
    const dependency = await app.services.evaluators.createEvaluator(principal, { name: "Has reply", templateId: hasReply.template.id, samplingRate: 0.5 });
    const { template } = await app.services.templates.createTemplate(principal, { name: "Long reply", sourceCode: LONG_REPLY(40) });
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Long reply", templateId: template.id, dependencies: [{ evaluator: "Has reply", gate: { score: "has_reply" } }] });
    const spans = await app.prisma.span.findMany({ where: { workspaceId: principal.workspaceId, kind: "chat", startTime: { gte: WINDOW_START } }, orderBy: [{ startTime: "asc" }, { id: "asc" }], take: 100 });
    const sampled = new Set(spans.filter((s) => samplingDraw(s.traceId, s.spanId, dependency.id) < 0.5).map((s) => s.id));
    expect(sampled.size).toBeGreaterThan(20);
    expect(sampled.size).toBeLessThan(80);

    const input = { evaluatorId: gid("Evaluator", evaluator.id), windowStart: WINDOW_START.toISOString(), maxSpans: 100, includeDependencies: true };
    const estimate = (await ok(ESTIMATE, { input }, key)).estimateBackfill;
    expect(estimate).toEqual({
      spans: 100,
      runs: 100 + sampled.size,
      reruns: 0,
      evaluators: [
        { name: "Long reply", source: "evaluator", readBy: [], spansMatched: 100, alreadyEvaluated: 0, toRun: 100 },
        { name: "Has reply", source: "dependency", readBy: ["Long reply"], spansMatched: sampled.size, alreadyEvaluated: 0, toRun: sampled.size },
      ],
    });
    const created = (await ok(CREATE, { input }, key)).createBackfill.backfill;
    const done = await finished(created.id, key);
    expect(done.status).toBe("completed");
    expect(done.progress.runsRecorded).toBe(estimate.runs);

    const depRuns = new Map((await app.prisma.run.findMany({ where: { evaluatorId: dependency.id } })).map((r) => [r.spanId!, r]));
    expect([...depRuns.keys()].sort()).toEqual([...sampled].sort());
    const runs = await app.prisma.run.findMany({ where: { evaluatorId: evaluator.id } });
    expect(runs).toHaveLength(100);
    for (const run of runs) {
      const dep = depRuns.get(run.spanId!);
      if (dep) {
        expect(run.outcome).toBe("ok");
        expect(run.inputRunIds).toEqual({ [dependency.id]: dep.id });
        expect(run.startedAt!.getTime()).toBeGreaterThanOrEqual(dep.finishedAt!.getTime());
      } else {
        expect(run.outcome).toBe("skipped");
        expect(run.skipReason).toContain('gate on "Has reply" score "has_reply"');
        expect(run.missingDependencies).toEqual(["Has reply"]);
      }
    }
  });
});
