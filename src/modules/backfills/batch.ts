import type { Span } from "../../generated/prisma/client.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { DeclaredDependency, InputRun } from "../dependencies/input-runs.js";
import { orderEvaluators } from "../dependencies/graph.js";
import { BatchRetryError, type BatchAttempt } from "../experiments/batch-processor.js";
import { dependencyIds, loadDependencies } from "../experiments/dependencies.js";
import type { EvaluationCore } from "../evaluation/evaluate-batch.js";
import { InputsByTarget } from "../evaluation/inputs.js";
import { memberSubject } from "../evaluation/subject.js";
import type { AfterEvaluation, RecordedRun } from "../runs/processor.js";
import { spanToDocument } from "../spans/document.js";
import { RULE_SELECT } from "../spans/matching.js";
import { MAX_TRACE_SPANS } from "../spans/service.js";
import { recordBackfillRuns, type BackfillRunRecord } from "./record.js";
import { ruleMatches } from "./selection.js";
import { runGroupBatch } from "./group-batch.js";

/** What one batch did, for logs and tests. */
export interface BackfillBatchOutcome {
  /** Runs this attempt recorded. */
  recorded: number;
  /** Earlier runs this attempt moved to RunHistory. */
  superseded: number;
  /** Pairs left as they were: already evaluated (no rerun), already run by this backfill, or not matched by a dependency's rule. */
  skipped: number;
  /** Runs left for the next attempt because the sandbox failed. */
  deferred: number;
  /** True when the backfill was cancelled (or gone) and the batch stopped. */
  stopped: boolean;
}

/** The rule fields read of a member evaluator. */
const RULE = { ...RULE_SELECT, name: true, kind: true, isolation: true, limits: true, target: true, groupSettings: true, connectionId: true, blockedAt: true, blockedReason: true, template: { select: { limits: true } } } as const;

/**
 * The processor of the `backfill-batch` queue: runs a backfill's evaluators (dependencies first)
 * over one batch of its spans, each evaluator over all of the batch's spans in ONE call to the
 * warm runners and ONE write (record.ts), as an experiment batch does. Idempotent and
 * resumable: pairs that already have this backfill's run are skipped, so a retried batch, or one
 * taken over from a killed worker, redoes only what was not committed. Cancel is checked before
 * each evaluator and again, under lock, by every write. A user fault is recorded (never retried);
 * a sandbox fault leaves the run for the job's next attempt and is recorded on the last one.
 * A backfill of a trace or session evaluator runs it alone, once per group of the batch, by the
 * same rules (group-batch.ts).
 *
 * As a live run, each run written is told to `onRecorded` (metrics, OpenTelemetry score export),
 * and once the batch ends (finished or cancelled) the live path's `afterEvaluation` hook gets
 * every (span, evaluator) pair the backfill holds in the batch: dependents outside the backfill
 * that ran on those spans with an input the backfill replaced (or added) run again live, their
 * earlier runs kept in RunHistory (modules/runs/release.ts). The hook is idempotent (its
 * job ids are tagged with the run read), so a retried batch queues nothing twice.
 */
export function createBackfillBatchProcessor(deps_: {
  prisma: PrismaClient;
  /** The evaluation core (the only way to the sandbox). */
  core: EvaluationCore;
  logger: Logger;
  /** The live path's hook: re-runs the dependents made stale by the backfill's runs (default: nothing). */
  afterEvaluation?: AfterEvaluation;
  /** Told after each run was committed (metrics, score export); must not throw. */
  onRecorded?: (run: RecordedRun) => void;
}) {
  const { prisma, core, logger } = deps_;

  async function live(backfillId: string): Promise<boolean> {
    const row = await prisma.backfill.findUnique({ where: { id: backfillId }, select: { status: true } });
    return row !== null && (row.status === "queued" || row.status === "running");
  }

  /** The spans of every trace of the batch (each trace's earliest MAX_TRACE_SPANS), in one query. */
  async function traces(workspaceId: string, spans: readonly Span[]): Promise<Map<string, Span[]>> {
    const traceIds = [...new Set(spans.map((s) => s.traceId))];
    const rows = await prisma.span.findMany({ where: { workspaceId, traceId: { in: traceIds } }, orderBy: [{ startTime: "asc" }, { createdAt: "asc" }] });
    const byTrace = new Map<string, Span[]>();
    for (const row of rows) {
      const list = byTrace.get(row.traceId) ?? [];
      if (list.length < MAX_TRACE_SPANS) list.push(row);
      byTrace.set(row.traceId, list);
    }
    return byTrace;
  }

  /** Marks the backfill completed once every batch finished (idempotent; only from running). */
  async function completeIfDone(backfill: { id: string; spanCount: number; batchSize: number }): Promise<void> {
    const batches = Math.ceil(backfill.spanCount / backfill.batchSize);
    const done = await prisma.backfillBatch.count({ where: { backfillId: backfill.id } });
    if (done >= batches) await prisma.backfill.updateMany({ where: { id: backfill.id, status: "running" }, data: { status: "completed", finishedAt: new Date() } });
  }

  return async function processBackfillBatch(payload: { backfillId: string; batch: number }, attempt: BatchAttempt): Promise<BackfillBatchOutcome> {
    const outcome: BackfillBatchOutcome = { recorded: 0, superseded: 0, skipped: 0, deferred: 0, stopped: false };
    const backfill = await prisma.backfill.findUnique({
      where: { id: payload.backfillId },
      include: { evaluators: { include: { templateVersion: true, evaluator: { select: RULE } }, orderBy: { position: "asc" } } },
    });
    if (!backfill || (backfill.status !== "queued" && backfill.status !== "running")) return { ...outcome, stopped: true };
    if (backfill.status === "queued") await prisma.backfill.updateMany({ where: { id: backfill.id, status: "queued" }, data: { status: "running", startedAt: new Date() } });

    const from = payload.batch * backfill.batchSize;
    const rows = await prisma.backfillSpan.findMany({ where: { backfillId: backfill.id, position: { gte: from, lt: from + backfill.batchSize } }, include: { span: true }, orderBy: { position: "asc" } });
    const spans = rows.map((r) => r.span);
    /** Records the finished batch (a retry rewrites the same numbers) and completes the backfill after its last. */
    const finish = async (count: number, ours: number, pairs: number) => {
      await prisma.backfillBatch.upsert({
        where: { backfillId_batch: { backfillId: backfill.id, batch: payload.batch } },
        create: { backfillId: backfill.id, batch: payload.batch, spans: count, runsRecorded: ours, pairsSkipped: pairs - ours },
        update: { spans: count, runsRecorded: ours, pairsSkipped: pairs - ours, finishedAt: new Date() },
      });
      await completeIfDone(backfill);
    };
    const asked = backfill.evaluators.find((m) => m.source === "evaluator");
    if (asked && asked.evaluator.target !== "span") {
      // A trace or session evaluator runs alone, once per group (BackfillSpan.groupKey): group-batch.ts.
      const keys = rows.map((r) => r.groupKey ?? r.span.traceId);
      const done = await runGroupBatch({ prisma, core, live: () => live(backfill.id), ...(deps_.onRecorded ? { onRecorded: deps_.onRecorded } : {}) }, backfill, asked, keys, attempt);
      const { ours, ...counts } = done;
      if (done.stopped) return counts;
      if (done.deferred > 0) {
        logger.warn({ backfillId: backfill.id, batch: payload.batch, deferred: done.deferred }, "backfill batch: sandbox faults, retrying");
        throw new BatchRetryError(done.deferred);
      }
      await finish(rows.length, ours, rows.length);
      return counts;
    }
    const byTrace = await traces(backfill.workspaceId, spans);
    const members = new Map(backfill.evaluators.map((m) => [m.evaluatorId, m]));
    const dependencies = await loadDependencies(prisma, [...members.keys()]);
    const order = orderEvaluators([...members.keys()], dependencyIds(dependencies));

    // The current run of every (span, member or dependency) pair: what is skipped, and what dependents read.
    const readIds = new Set([...members.keys(), ...[...dependencies.values()].flat().map((d) => d.dependsOnId)]);
    const existing = await prisma.run.findMany({
      where: { spanId: { in: spans.map((s) => s.id) }, evaluatorId: { in: [...readIds] } },
      select: { id: true, spanId: true, evaluatorId: true, outcome: true, backfillId: true, scores: { orderBy: { position: "asc" }, select: { name: true, dataType: true, numericValue: true, higherIsBetter: true, value: true } } },
    });
    const current = new InputsByTarget<InputRun & { backfillId: string | null }>();
    for (const r of existing) current.set(r.spanId!, r);
    /** Tells the live path what this backfill holds on the batch's spans, so stale dependents run again. */
    const rerunStaleDependents = async () => {
      const ours = [...current.entries()].filter(([, r]) => r.backfillId === backfill.id).map(([spanId, r]) => ({ workspaceId: backfill.workspaceId, targetType: "span" as const, targetId: spanId, evaluatorId: r.evaluatorId }));
      if (ours.length) await deps_.afterEvaluation?.(ours);
    };

    for (const evaluatorId of order) {
      const member = members.get(evaluatorId)!;
      const declared: DeclaredDependency[] = (dependencies.get(evaluatorId) ?? []).map((d) => ({ dependsOnId: d.dependsOnId, name: d.name, gate: d.gate }));
      // The evaluator asked for runs on every span chosen; a dependency only where its own rule matches (as live).
      const todo = spans.filter((span) => {
        if (member.source !== "evaluator" && !ruleMatches(member.evaluator, span)) return false;
        const run = current.run(span.id, evaluatorId);
        return !run || (run.backfillId !== backfill.id && backfill.rerun);
      });
      outcome.skipped += spans.length - todo.length;
      if (todo.length === 0) continue;
      if (!(await live(backfill.id))) {
        await rerunStaleDependents();
        return { ...outcome, stopped: true };
      }

      const subject = memberSubject(backfill.workspaceId, evaluatorId, member, declared);
      const dependsOn = declared.map((d) => d.dependsOnId);
      const evaluated = await core.evaluateBatch(
        subject,
        todo.map((span) => ({
          target: span,
          inputs: current.inputsOf(span.id, dependsOn),
          lastAttempt: attempt.last,
          document: (scores) => spanToDocument(span, byTrace.get(span.traceId) ?? [], { scores: scores ?? {} }) as unknown as Record<string, unknown>,
        })),
      );
      const records: BackfillRunRecord[] = [];
      for (const answer of evaluated) {
        if (answer.status !== "done") outcome.deferred += 1; // retried with the job
        else records.push({ workspaceId: backfill.workspaceId, evaluatorId, attempts: attempt.attempt, target: { spanId: answer.target.id }, ...answer.run });
      }
      const written = await recordBackfillRuns(prisma, backfill, records);
      if (written.stopped) {
        await rerunStaleDependents();
        return { ...outcome, stopped: true };
      }
      outcome.recorded += written.written.length;
      outcome.superseded += written.superseded;
      // What the next evaluators (its dependents) read on these spans.
      for (const run of written.written) {
        current.set(run.spanId, { id: run.id, evaluatorId: run.evaluatorId, outcome: run.outcome, backfillId: backfill.id, scores: run.columns.scores.map((s) => ({ ...s, value: s.value as never })) });
        deps_.onRecorded?.({ workspaceId: backfill.workspaceId, targetType: "span", targetId: run.spanId, evaluatorId: run.evaluatorId, outcome: run.outcome, durationMs: run.columns.durationMs, backfillId: backfill.id });
      }
    }
    await rerunStaleDependents();
    if (outcome.deferred > 0) {
      logger.warn({ backfillId: backfill.id, batch: payload.batch, deferred: outcome.deferred }, "backfill batch: sandbox faults, retrying");
      throw new BatchRetryError(outcome.deferred);
    }
    // This batch is finished: what the backfill holds for its spans now (a retry rewrites the same numbers).
    const ours = [...current.entries()].map(([, r]) => r).filter((r) => r.backfillId === backfill.id && members.has(r.evaluatorId)).length;
    await finish(spans.length, ours, spans.length * members.size);
    return outcome;
  };
}

/** The backfill batch processor. */
export type BackfillBatchProcessor = ReturnType<typeof createBackfillBatchProcessor>;
