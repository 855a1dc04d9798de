// REVIEW (issue 29): attacks on trace and session evaluators. Each test asserts the behaviour the
// issue asks for; a test that FAILS on main demonstrates a finding (named in its title).
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/lib/clock.js";
import { createGroupScheduler } from "../../src/modules/runs/group-schedule.js";
import { insertRuns, lockGroupRuns } from "../../src/modules/evaluation/write.js";
import { groupTouchesOf, type GroupEvaluatorRule } from "../../src/modules/spans/group-touches.js";
import { settingsOf } from "../../src/modules/evaluators/group-settings.js";
import { liveHarness, waitFor } from "../runs/helpers.js";

const clock: Clock & { offsetMs: number } = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
const SOURCE = `
def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="spans", value=len(ctx.trace.spans))])
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "review", clock });
});
afterAll(() => h.close());

async function groupEvaluator(target: "trace" | "session", groupSettings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const ws = await h.workspace();
  const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Size", sourceCode: SOURCE });
  const created = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Size", templateId: template.template.id, spanKind: "agent" });
  const evaluator = await h.app.prisma.evaluator.update({ where: { id: created.id }, data: { target, groupSettings: groupSettings as never, ...extra } });
  return { ws, evaluator };
}

const base = Date.parse("2026-12-03T10:00:00.000Z");
function span(traceId: string, spanId: string, offsetS: number, extra: Record<string, unknown> = {}) {
  return { traceId, spanId, name: spanId, kind: "agent", startTime: new Date(base + offsetS * 1000).toISOString(), endTime: new Date(base + offsetS * 1000 + 500).toISOString(), ...extra };
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe("trace and session groups under attack", () => {
  it("attack: deadlock: an ingest touching two groups and the processor's write lock take the GroupSchedule rows in opposite orders (key vs id)", async () => {
    const { ws, evaluator } = await groupEvaluator("trace");
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("ka", "s1", 0), span("kb", "s1", 0)]);
    // Make the id order the opposite of the key order (ids are random: half of all pairs are like this).
    const idA = `ffffffff${randomUUID().slice(8)}`;
    const idB = `00000000${randomUUID().slice(8)}`;
    await h.app.prisma.$executeRaw`UPDATE "GroupSchedule" SET id = CASE "groupKey" WHEN 'ka' THEN ${idA}::uuid ELSE ${idB}::uuid END WHERE "evaluatorId" = ${evaluator.id}::uuid`;
    const errors: string[] = [];
    let ingest: Promise<unknown> = Promise.resolve();
    await h.app.prisma
      .$transaction(
        async (tx) => {
          // The processor's write() locks its batch's schedules in id order (kb first); here the lock of kb is taken, then...
          await tx.$queryRaw`SELECT id FROM "GroupSchedule" WHERE id = ${idB}::uuid FOR UPDATE`;
          // ...a late span of each trace arrives: the ingest statement locks ka (key order) then waits for kb.
          ingest = h.app.services.spans.ingestSpans(ws.principal, [span("ka", "s2", 1), span("kb", "s2", 1)]).catch((e: unknown) => errors.push(`ingest: ${String(e)}`));
          const blocked = await until(async () => {
            const [row] = await h.app.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%WITH input AS%'`;
            return (row?.n ?? 0) > 0;
          });
          expect(blocked).toBe(true);
          // ...and the processor's statement goes on to the rest of its batch in id order (ka).
          await tx.$queryRaw`SELECT id, "ranGeneration" FROM "GroupSchedule" WHERE id = ANY(${[idA, idB]}::uuid[]) ORDER BY id FOR UPDATE`;
        },
        { timeout: 20_000 },
      )
      .catch((e: unknown) => errors.push(`processor: ${String(e).slice(0, 200)}`));
    await ingest;
    expect(errors).toEqual([]);
  });

  it("attack: hostile key: one span with a long session key fails the whole ingest batch (btree row size of the GroupSchedule/Run unique indexes)", async () => {
    const { ws } = await groupEvaluator("session");
    const longKey = randomBytes(12_000).toString("base64"); // 16 KB, incompressible
    let error: unknown = null;
    try {
      await h.app.services.spans.ingestSpans(ws.principal, [span("t-ok", "s1", 0, { attributes: { "session.id": "s-ok" } }), span("t-long", "s1", 0, { attributes: { "session.id": longKey } })]);
    } catch (e) {
      error = e;
    }
    expect(error ? String(error).slice(0, 300) : null).toBeNull();
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(2);
  });

  it("attack: invocation cap: a group's re-runs move the earlier run to RunHistory, so the hourly cap (counted on current Run rows) counts each group at most once", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", {}, { maxInvocationsPerHour: 2 });
    const scope = { workspaceId: ws.workspace.id };
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-cap", "root", 0)]);
    for (let round = 1; round <= 3; round += 1) {
      if (round > 1) await h.app.services.spans.ingestSpans(ws.principal, [span("t-cap", `late${round}`, round, { parentSpanId: "root" })]);
      clock.offsetMs = round * 31_000;
      expect((await h.app.services.groupScheduler.poll(scope)).queued).toBe(1);
      await until(async () => (await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } })).ranGeneration === round, 30_000);
    }
    const [current] = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id } });
    // Two runs already in the last hour (the first now in history): the third is skipped by the cap of 2,
    // and a round not run keeps the group's run that ran (round 2's, on 2 spans) instead of replacing it.
    expect(current).toMatchObject({ outcome: "ok", groupSpanCount: 2 });
    expect(await h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } })).toBe(1);
  });

  it("attack: requeue budget: GroupSchedule.requeues is never reset, so after 10 lost jobs over a group's life a lost generation is never queued again", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const dropped: unknown[] = [];
    // A poller whose Redis loses every first job (as after a Redis restart); the re-queued job is delivered to the real queue.
    let deliver = false;
    const lossy = createGroupScheduler({
      prisma: h.app.prisma,
      logger: h.app.logger,
      clock,
      options: { requeueAfterMs: 10_000 },
      queues: {
        addBulk: async (name: string, jobs: { payload: unknown; jobId?: string }[]) => {
          if (deliver) return (h.app.queues as unknown as { addBulk: (n: string, j: unknown) => Promise<unknown> }).addBulk(name, jobs);
          dropped.push(...jobs);
        },
        // The dropped jobs are gone from Redis; the delivered ones are in the real queue.
        states: (name: string, ids: string[]) => h.app.queues.states(name as never, ids),
      } as never,
    });
    const scope = { workspaceId: ws.workspace.id };
    let t = 0;
    const requeued: number[] = [];
    for (let round = 1; round <= 11; round += 1) {
      clock.offsetMs = t;
      await h.app.services.spans.ingestSpans(ws.principal, [span("t-life", `s${round}`, round, round === 1 ? {} : { parentSpanId: "s1" })]);
      t += 2_000;
      clock.offsetMs = t;
      deliver = false;
      expect((await lossy.poll(scope)).queued).toBe(1);
      t += 11_000;
      clock.offsetMs = t;
      deliver = true;
      const report = await lossy.poll(scope);
      requeued.push(report.requeued);
      if (report.requeued === 0) break;
      await until(async () => (await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } })).ranGeneration === round, 30_000);
      t += 1_000;
    }
    // Every generation's one lost job is re-queued once.
    expect(requeued).toEqual(Array(11).fill(1));
  }, 120_000);

  it("attack: slow job: a queued generation whose job is still waiting or running past requeueAfterMs is not queued a second time", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const added: string[] = [];
    let state = "active";
    const slow = createGroupScheduler({
      prisma: h.app.prisma,
      logger: h.app.logger,
      clock,
      options: { requeueAfterMs: 10_000 },
      // A queue that keeps every job (never run here) and answers its state as the test says.
      queues: { addBulk: async (_name: string, jobs: { jobId: string }[]) => void added.push(...jobs.map((j) => j.jobId)), states: async (_name: string, ids: string[]) => ids.map((id) => (added.includes(id) ? state : "unknown")) } as never,
    });
    const scope = { workspaceId: ws.workspace.id };
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-slow", "a", 0)]);
    clock.offsetMs = 2_000;
    expect((await slow.poll(scope)).queued).toBe(1);
    // Still running 11 s later: its check moves on (queuedAt now), nothing is queued, no budget is spent.
    clock.offsetMs = 13_000;
    expect(await slow.poll(scope)).toMatchObject({ queued: 0, requeued: 0 });
    const row = () => h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect(await row()).toMatchObject({ queuedGeneration: 1, requeues: 0 });
    // The check moved 11 s on from the queuing (checkedAt); queuedAt, in the job id, stays.
    const moved = (await row()).checkedAt!.getTime() - (await row()).queuedAt!.getTime();
    expect(moved >= 11_000 && moved < 16_000).toBe(true);
    expect(added).toHaveLength(1);
    // Once the job is gone (it failed, or Redis lost it), the next overdue check queues it again.
    state = "failed";
    clock.offsetMs = 25_000;
    expect(await slow.poll(scope)).toMatchObject({ requeued: 1 });
    expect(added).toHaveLength(2);
    expect(await row()).toMatchObject({ queuedGeneration: 1, requeues: 1 });
  });

  it("attack: two writers: a backfill replacing a trace's run while the live round writes it — the later writer reads the other's run and supersedes it, none is dropped", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-race", "a", 0)]);
    // The "backfill" holds the group-run lock while it writes its run (as backfills/record.ts does).
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const now = new Date();
    const backfill = h.app.prisma.$transaction(async (tx) => {
      await lockGroupRuns(tx, evaluator.id, "trace", ["t-race"]);
      locked();
      await released;
      const [written] = await insertRuns(tx, [{ workspaceId: ws.workspace.id, evaluatorId: evaluator.id, templateVersionId: null, target: { traceId: "t-race" }, params: {}, libraryVersions: {}, result: null, skipReason: "written by the other writer", attempts: 1, startedAt: now, finishedAt: now }]);
      return written!.runId;
    }, { timeout: 60_000 });
    await isLocked;
    clock.offsetMs = 2_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    // The live write waits on the lock (an advisory lock not granted), then the backfill commits first.
    expect(await until(async () => (await h.app.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)[0]!.n > 0n, 30_000)).toBe(true);
    release();
    const other = await backfill;
    await waitFor(() => h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } }), 1);
    const [current] = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id } });
    expect(current).toMatchObject({ outcome: "ok", traceId: "t-race", groupSpanCount: 1 });
    expect(await h.app.prisma.runHistory.findMany({ where: { evaluatorId: evaluator.id }, select: { id: true, skipReason: true } })).toEqual([{ id: other, skipReason: "written by the other writer" }]);
  });

  it("attack: arrival order: lastSpanAt takes the committing ingest's arrival even when older (two instances, or a statement that waited), so dueAt moves earlier", async () => {
    const { ws, evaluator } = await groupEvaluator("trace");
    clock.offsetMs = 10_000;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-order", "a", 0)]);
    clock.offsetMs = 5_000; // an ingest that read its arrival earlier commits later
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-order", "b", 1)]);
    const s = await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect(s.lastSpanAt.getTime() - s.firstSpanAt.getTime()).toBeGreaterThanOrEqual(0);
  });

  it("attack: endOnRootSpan: a root span that has not ended (endTime null) is taken as the trace's end", () => {
    const rule = { id: randomUUID(), enabled: true, samplingRate: 1, target: "trace", settings: settingsOf("trace", { endOnRootSpan: true }) } as unknown as GroupEvaluatorRule;
    const { touches } = groupTouchesOf(randomUUID(), { traceId: "t", spanId: "root", parentSpanId: null, name: "agent", kind: "agent", startTime: new Date(base), endTime: null, attributes: {}, metadata: {}, status: "unset" } as never, [rule]);
    expect(touches[0]!.mk).toBe(false);
  });
  it("attack: enqueue failures burn the requeue budget: 10 polls (2.5 s at the default 250 ms) with addBulk failing leave a due group never queued", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    let failing = true;
    const added: unknown[] = [];
    const poller = createGroupScheduler({
      prisma: h.app.prisma,
      logger: h.app.logger,
      clock,
      queues: {
        addBulk: async (_name: string, jobs: unknown[]) => {
          if (failing) throw new Error("redis unavailable");
          added.push(...jobs);
        },
        states: async (_name: string, ids: string[]) => ids.map(() => "unknown"),
      } as never,
    });
    const scope = { workspaceId: ws.workspace.id };
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-outage", "root", 0)]);
    clock.offsetMs = 2_000;
    for (let i = 0; i < 11; i += 1) {
      await poller.poll(scope);
      clock.offsetMs += 250;
    }
    failing = false;
    clock.offsetMs += 200_000;
    await poller.poll(scope);
    const s = await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    // Redis is back: the due generation must be queued (it has no run).
    expect({ added: added.length, requeues: s.requeues, ranGeneration: s.ranGeneration }).toMatchObject({ added: 1 });
  });

  it("holds: one ingest batch with a keyed and an un-keyed span of a session, and a trace in two sessions: no double update, every group extended", async () => {
    const { ws, evaluator } = await groupEvaluator("session");
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-1", "root", 0, { attributes: { "session.id": "s-A" } }), span("t-2", "root", 0, { attributes: { "session.id": "s-B" } })]);
    // t-1 now also belongs to s-B (a span of it carries s-B); an un-keyed child of t-1 extends both.
    await h.app.services.spans.ingestSpans(ws.principal, [
      span("t-1", "c1", 1, { parentSpanId: "root", attributes: { "session.id": "s-B" } }),
      span("t-1", "c2", 2, { parentSpanId: "root" }),
      span("t-1", "c3", 3, { parentSpanId: "root", attributes: { "session.id": "s-A" } }),
    ]);
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-1", "c4", 4, { parentSpanId: "root" }), span("t-1", "c5", 5, { parentSpanId: "root", attributes: { "session.id": "s-A" } })]);
    const rows = await h.app.prisma.groupSchedule.findMany({ where: { evaluatorId: evaluator.id }, orderBy: { groupKey: "asc" } });
    expect(rows.map((r) => [r.groupKey, r.traceIds, r.spanCount])).toEqual([
      ["s-A", ["t-1"], 5],
      ["s-B", ["t-1", "t-2"], 3],
    ]);
  });

  it("holds: concurrent ingests of the same new session and trace: one schedule each, every span counted", async () => {
    const { ws, evaluator } = await groupEvaluator("session");
    clock.offsetMs = 0;
    await Promise.all(Array.from({ length: 8 }, (_, i) => h.app.services.spans.ingestSpans(ws.principal, [span(`t-c${i % 2}`, `s${i}`, i, { attributes: { "session.id": "s-conc" } })])));
    const rows = await h.app.prisma.groupSchedule.findMany({ where: { evaluatorId: evaluator.id } });
    expect(rows.map((r) => [r.groupKey, r.traceIds, r.spanCount, r.generation])).toEqual([["s-conc", ["t-c0", "t-c1"], 8, 1]]);
  });

  it("holds: a job whose schedule moved on (a span arrived after it was queued): it writes its generation, the group stays stale and runs again", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const held: { payload: unknown; jobId?: string }[] = [];
    const holding = createGroupScheduler({ prisma: h.app.prisma, logger: h.app.logger, clock, queues: { addBulk: async (_n: string, jobs: { payload: unknown; jobId?: string }[]) => void held.push(...jobs), states: async (_n: string, ids: string[]) => ids.map(() => "unknown") } as never });
    const scope = { workspaceId: ws.workspace.id };
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-moved", "root", 0)]);
    clock.offsetMs = 2_000;
    expect((await holding.poll(scope)).queued).toBe(1);
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-moved", "late", 1, { parentSpanId: "root" })]);
    // Deliver the held generation-1 job twice (a duplicate).
    await (h.app.queues as unknown as { addBulk: (n: string, j: unknown) => Promise<void> }).addBulk("evaluate-target", [held[0]!, { ...held[0]!, jobId: `${held[0]!.jobId}_dup` }]);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 1);
    await new Promise((r) => setTimeout(r, 1_500));
    let s = await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect([s.generation, s.ranGeneration, s.staleSince !== null, s.dueAt !== null]).toEqual([2, 1, true, true]);
    expect(await h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } })).toBe(1);
    expect(await h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } })).toBe(0);
    clock.offsetMs = 5_000;
    expect((await h.app.services.groupScheduler.poll(scope)).queued).toBe(1);
    await waitFor(() => h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } }), 1);
    s = await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect([s.generation, s.ranGeneration, s.staleSince, s.dueAt]).toEqual([2, 2, null, null]);
    expect(await h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } })).toBe(1);
  });
  it("holds: other paths: a backfill of a trace evaluator selects traces (one run per trace, not per span), and a span evaluator may not depend on a trace evaluator", async () => {
    const { ws, evaluator } = await groupEvaluator("trace");
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-bf", "root", 0), span("t-bf", "child", 1, { parentSpanId: "root" })]);
    const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
    const estimate = await ws.gql(`query($input: BackfillInput!) { estimateBackfill(input: $input) { target spans groups runs } }`, { input: { evaluatorId: gid("Evaluator", evaluator.id), windowStart: new Date(base - 86_400_000).toISOString() } });
    // A trace evaluator's backfill selects traces: the two spans of t-bf make one group, one run.
    const selected = (estimate as { data?: { estimateBackfill?: unknown } }).data?.estimateBackfill;
    // And a span evaluator depending on a trace evaluator must be refused (the issue: "A span evaluator cannot depend on a group evaluator").
    const spanTemplate = await h.app.services.templates.createTemplate(ws.principal, { name: "Dep", sourceCode: "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n" });
    let refused = false;
    try {
      await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Dep", templateId: spanTemplate.template.id, dependencies: [{ evaluator: evaluator.id }] } as never);
    } catch {
      refused = true;
    }
    expect({ selected, refused }).toEqual({ selected: { target: "trace", spans: 1, groups: 1, runs: 1 }, refused: true });
  });
  it("attack: explainability: explainMatch on a session evaluator says a span without a session key matched (ingest took no group) (explainMatch is not group-aware: span sampling seed, span run lookup, no schedule state)", async () => {
    const { ws, evaluator } = await groupEvaluator("session");
    clock.offsetMs = 0;
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [span("t-nokey", "root", 0)]);
    expect(await h.app.prisma.groupSchedule.count({ where: { evaluatorId: evaluator.id } })).toBe(0);
    const explained = await h.app.services.spans.explainMatch(ws.workspace.id, ingested.spans[0]!.id, evaluator.id);
    expect({ matched: explained.decision.matched, reason: explained.decision.reason }).toEqual({ matched: false, reason: "attributes" });
  });
  it("holds: two pollers at once (two app instances) and re-queued duplicates: each due generation queued once, one run per group, no history", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const scope = { workspaceId: ws.workspace.id };
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, Array.from({ length: 30 }, (_, i) => span(`t-two-${i}`, "root", i)));
    const other = createGroupScheduler({ prisma: h.app.prisma, logger: h.app.logger, clock, queues: h.app.queues, options: { batch: 7, requeueAfterMs: 1 } });
    clock.offsetMs = 2_000;
    const reports = await Promise.all([h.app.services.groupScheduler.poll(scope), other.poll(scope), other.poll(scope), h.app.services.groupScheduler.poll(scope)]);
    expect(reports.reduce((n, r) => n + r.queued, 0)).toBe(30);
    // The other instance re-queues what has no run yet (requeueAfterMs 1): duplicates of in-flight jobs.
    clock.offsetMs = 3_000;
    await other.poll(scope);
    await waitFor(() => h.app.prisma.groupSchedule.count({ where: { evaluatorId: evaluator.id, ranGeneration: 1 } }), 30);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } })).toBe(30);
    expect(await h.app.prisma.runHistory.count({ where: { evaluatorId: evaluator.id } })).toBe(0);
  });
  it("holds: cross-workspace: the same session key and trace id in two workspaces stay apart (schedules, tryCode by sessionId/traceId)", async () => {
    const a = await groupEvaluator("session");
    const b = await groupEvaluator("session");
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(a.ws.principal, [span("t-shared", "root", 0, { attributes: { "session.id": "shared" }, input: "secret of A" })]);
    await h.app.services.spans.ingestSpans(b.ws.principal, [span("t-other", "root", 0, { attributes: { "session.id": "shared" } })]);
    const rows = await h.app.prisma.groupSchedule.findMany({ where: { evaluatorId: { in: [a.evaluator.id, b.evaluator.id] } }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => [r.workspaceId, r.traceIds])).toEqual([
      [a.ws.workspace.id, ["t-shared"]],
      [b.ws.workspace.id, ["t-other"]],
    ]);
    const template = (await h.app.prisma.evaluator.findUniqueOrThrow({ where: { id: b.evaluator.id } })).templateId!;
    const tried = await h.app.services.tryCode.tryCode(b.ws.principal, { templateId: template, sessionId: "shared", source: "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='t', value=0, comment=repr([s.input for s in ctx.trace.spans]))])\n" } as never);
    expect(JSON.stringify(tried)).not.toContain("secret of A");
    await expect(h.app.services.tryCode.tryCode(b.ws.principal, { templateId: template, traceId: "t-shared" })).rejects.toThrow(/trace.*t-shared/);
  });
  it("holds: concurrent ingests touching the same 20 groups in opposite orders (new spans each): no deadlock between ingests", async () => {
    const { ws } = await groupEvaluator("trace");
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, Array.from({ length: 20 }, (_, i) => span(`t-dl-${i}`, "root", 0)));
    const errors: string[] = [];
    for (let round = 0; round < 10; round += 1) {
      const batch = (tag: string) => Array.from({ length: 20 }, (_, i) => span(`t-dl-${i}`, `${tag}${round}`, 1, { parentSpanId: "root" }));
      const one = batch("x");
      const two = batch("y").reverse();
      await Promise.all([one, two, batch("z")].map((b) => h.app.services.spans.ingestSpans(ws.principal, b).catch((e: unknown) => errors.push(String(e).slice(0, 200)))));
    }
    expect(errors).toEqual([]);
  });
  it("attack: first round in flight: a dependency's run changing while a trace's first round is queued (ranGeneration null) does not give the group a next round, so its run keeps the old scores", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Judge", kind: "external" });
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { dependencies: [{ evaluator: "Judge" }] });
    clock.offsetMs = 0;
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [span("t-first", "a", 0)]);
    const a = ingested.spans[0]!.id;
    await h.app.services.dependencies.submitScores(ws.principal, { spanId: a, evaluator: "Judge", scores: [{ name: "helpful", value: 0.9 }] });
    // The due pass marked the first generation queued (its job waiting or running, so it may read the judge's first run) ...
    await h.app.prisma.$executeRaw`UPDATE "GroupSchedule" SET "queuedGeneration" = generation, "queuedAt" = now() WHERE "evaluatorId" = ${evaluator.id}::uuid`;
    const row = () => h.app.prisma.groupSchedule.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect(await row()).toMatchObject({ generation: 1, queuedGeneration: 1, ranGeneration: null });
    // ... and the judge's scores are posted again: as for a later round in flight, the group gets a next round.
    await h.app.services.dependencies.submitScores(ws.principal, { spanId: a, evaluator: "Judge", scores: [{ name: "helpful", value: 0.1 }] });
    expect(await row()).toMatchObject({ generation: 2, queuedGeneration: 1, ranGeneration: null });
  });

  it("attack: slow job, second check: once the lost pass moves a live job's queuedAt, the next check asks for a job id built from the new queuedAt, finds none, and queues the still-running job again", async () => {
    // Was: the moved "queuedAt" is also the job id's; the second check asked BullMQ for an id that never existed
    // ("unknown") and queued a second job. Now the check moves "checkedAt" and queuedAt stays the job's.
    const { ws } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const added: string[] = [];
    const slow = createGroupScheduler({
      prisma: h.app.prisma,
      logger: h.app.logger,
      clock,
      options: { requeueAfterMs: 10_000 },
      queues: { addBulk: async (_name: string, jobs: { jobId: string }[]) => void added.push(...jobs.map((j) => j.jobId)), states: async (_name: string, ids: string[]) => ids.map((id) => (added.includes(id) ? "active" : "unknown")) } as never,
    });
    const scope = { workspaceId: ws.workspace.id };
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-slow2", "a", 0)]);
    clock.offsetMs = 2_000;
    expect((await slow.poll(scope)).queued).toBe(1);
    clock.offsetMs = 13_000;
    expect(await slow.poll(scope)).toMatchObject({ queued: 0, requeued: 0 });
    // Still running at the second and third checks: nothing may be queued.
    clock.offsetMs = 25_000;
    expect(await slow.poll(scope)).toMatchObject({ queued: 0, requeued: 0 });
    clock.offsetMs = 37_000;
    expect(await slow.poll(scope)).toMatchObject({ queued: 0, requeued: 0 });
    expect(added).toHaveLength(1);
    const row = await h.app.prisma.groupSchedule.findFirstOrThrow({ where: { workspaceId: ws.workspace.id } });
    const moved = row.checkedAt!.getTime() - row.queuedAt!.getTime();
    expect([row.requeues, moved >= 35_000 && moved < 40_000]).toEqual([0, true]);
  });
  it("attack: session trace ties: two traces of a session starting in the same millisecond are ordered by trace id live (GroupSchedule.traceIds) but by arrival in tryCode and backfills (groups/stored.ts), so the conversation and the score differ", async () => {
    const { ws, evaluator } = await groupEvaluator("session", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const order = "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='order', value=len(ctx.session.traces), comment=','.join(t.trace_id for t in ctx.session.traces))])\n";
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Order", sourceCode: order });
    await h.app.prisma.evaluator.update({ where: { id: evaluator.id }, data: { templateId: template.template.id } });
    clock.offsetMs = 0;
    // "t-tie-b" arrives first, "t-tie-a" later; both start at the same millisecond.
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-tie-b", "root", 0, { attributes: { "session.id": "s-tie" }, input: "first", output: "one" })]);
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-tie-a", "root", 0, { attributes: { "session.id": "s-tie" }, input: "second", output: "two" })]);
    clock.offsetMs = 2_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id }, include: { scores: true } });
    const tried = await h.app.services.tryCode.tryCode(ws.principal, { templateId: template.template.id, sessionId: "s-tie" });
    expect(tried.scores.map((x) => x.comment)).toEqual(run.scores.map((x) => x.comment));
  });
  it("holds: staleness over a batch: a dependency's runs on the spans of several settled traces (read in three queries for all) move only the trace whose run read another run", async () => {
    const { ws, evaluator } = await groupEvaluator("trace", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Judge", kind: "external" });
    await h.app.services.evaluators.updateEvaluator(ws.principal, evaluator.id, { dependencies: [{ evaluator: "Judge" }] });
    clock.offsetMs = 0;
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, [span("t-batch-1", "a", 0), span("t-batch-2", "a", 0), span("t-batch-3", "a", 0)]);
    const ids = ingested.spans.map((x) => x.id);
    for (const id of ids.slice(0, 2)) await h.app.services.dependencies.submitScores(ws.principal, { spanId: id, evaluator: "Judge", scores: [{ name: "helpful", value: 0.9 }] });
    clock.offsetMs = 2_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(3);
    await waitFor(() => h.app.prisma.groupSchedule.count({ where: { evaluatorId: evaluator.id, ranGeneration: 1 } }), 3);
    // The judge's run on t-batch-1's span changes behind the hook's back (as a batch of runs would), then the hook sees all three spans.
    const judge = await h.app.prisma.evaluator.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, name: "Judge" } });
    await h.app.prisma.run.deleteMany({ where: { evaluatorId: judge.id, spanId: ids[0]! } });
    const { staleGroupsAfter } = await import("../../src/modules/runs/group-staleness.js");
    expect(await staleGroupsAfter({ prisma: h.app.prisma, clock }, { workspaceId: ws.workspace.id, evaluatorId: judge.id, spanIds: ids })).toBe(1);
    const rows = await h.app.prisma.groupSchedule.findMany({ where: { evaluatorId: evaluator.id }, orderBy: { groupKey: "asc" }, select: { groupKey: true, generation: true } });
    expect(rows).toEqual([{ groupKey: "t-batch-1", generation: 2 }, { groupKey: "t-batch-2", generation: 1 }, { groupKey: "t-batch-3", generation: 1 }]);
  });
  it("holds: non-matching trace of a taken session: a later trace whose spans name the session but do not match the rule counts for it (docs/evaluation.md: once taken, every new span of the group counts), live as in tryCode", async () => {
    const { ws, evaluator } = await groupEvaluator("session", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const count = "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='traces', value=len(ctx.session.traces), comment=','.join(t.trace_id for t in ctx.session.traces))])\n";
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Traces", sourceCode: count });
    await h.app.prisma.evaluator.update({ where: { id: evaluator.id }, data: { templateId: template.template.id } });
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("s-rule-1", "root", 0, { attributes: { "session.id": "s-rule" } })]);
    await h.app.services.spans.ingestSpans(ws.principal, [span("s-rule-2", "tool", 5, { kind: "tool", attributes: { "session.id": "s-rule" } })]);
    clock.offsetMs = 2_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id }, include: { scores: true } });
    const tried = await h.app.services.tryCode.tryCode(ws.principal, { templateId: template.template.id, sessionId: "s-rule" });
    expect({ live: run.scores.map((x) => x.comment), tryCode: tried.scores.map((x) => x.comment) }).toEqual({ live: ["s-rule-1,s-rule-2"], tryCode: ["s-rule-1,s-rule-2"] });
  });
  it.fails("attack: non-matching trace before the session is taken: a trace naming the session whose spans the rule does not match, arriving before the one that takes it, is missing live (GroupSchedule.traceIds) but read by tryCode and backfills", async () => {
    // WRONG (not fixed): docs/evaluation.md says a trace belongs to every session one of its spans names, and a
    // rule matching any span takes the group. Ingest only adds a trace to GroupSchedule.traceIds when a span of
    // it arrives after the schedule exists (or matches), so an earlier non-matching trace of the session is never
    // in the live document, while tryCode and backfills (groups/stored.ts) read every trace carrying the key:
    // the same session scores differently. A fix reads the session's stored traces by key when the schedule is
    // created (an unindexed attributes scan on the ingest path today), or an index on the session key.
    const { ws, evaluator } = await groupEvaluator("session", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const count = "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='traces', value=len(ctx.session.traces), comment=','.join(t.trace_id for t in ctx.session.traces))])\n";
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Traces", sourceCode: count });
    await h.app.prisma.evaluator.update({ where: { id: evaluator.id }, data: { templateId: template.template.id } });
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("s-early-0", "tool", 0, { kind: "tool", attributes: { "session.id": "s-early" } })]);
    await h.app.services.spans.ingestSpans(ws.principal, [span("s-early-1", "root", 5, { attributes: { "session.id": "s-early" } })]);
    clock.offsetMs = 2_000;
    expect((await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued).toBe(1);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id }, include: { scores: true } });
    const tried = await h.app.services.tryCode.tryCode(ws.principal, { templateId: template.template.id, sessionId: "s-early" });
    expect({ live: run.scores.map((x) => x.comment), tryCode: tried.scores.map((x) => x.comment) }).toEqual({ live: ["s-early-0,s-early-1"], tryCode: ["s-early-0,s-early-1"] });
  });
  it("attack: tryCode on a session reads the traces another session evaluator (other session keys) lists under the same key", async () => {
    const { ws, evaluator } = await groupEvaluator("session", { quietPeriodMs: 1_000, maxWaitMs: 60_000 });
    const other = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Other", templateId: evaluator.templateId!, spanKind: "agent" });
    await h.app.prisma.evaluator.update({ where: { id: other.id }, data: { target: "session", groupSettings: { sessionKeyAttribute: "conversation.id" } } });
    const count = "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='traces', value=len(ctx.session.traces), comment=','.join(t.trace_id for t in ctx.session.traces))])\n";
    const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Traces", sourceCode: count });
    clock.offsetMs = 0;
    await h.app.services.spans.ingestSpans(ws.principal, [span("k-1", "root", 0, { attributes: { "session.id": "k" } }), span("k-2", "root", 1, { attributes: { "conversation.id": "k" } })]);
    const schedules = await h.app.prisma.groupSchedule.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { traceIds: "asc" }, select: { evaluatorId: true, traceIds: true } });
    expect(schedules).toEqual([{ evaluatorId: evaluator.id, traceIds: ["k-1"] }, { evaluatorId: other.id, traceIds: ["k-2"] }]);
    // By the default keys (the first evaluator's): k-1 only; by conversation.id (the other's): k-2 only.
    const tried = await h.app.services.tryCode.tryCode(ws.principal, { templateId: template.template.id, sessionId: "k" });
    const byOther = await h.app.services.tryCode.tryCode(ws.principal, { templateId: template.template.id, sessionId: "k", groupSettings: { sessionKeyAttribute: "conversation.id" } });
    expect([tried.scores.map((x) => x.comment), byOther.scores.map((x) => x.comment)]).toEqual([["k-1"], ["k-2"]]);
  });
});
