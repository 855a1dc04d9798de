import type { PrismaClient } from "../../lib/prisma.js";
import type { FlowSpec, Queues } from "../../queues/queues.js";
import { barrierJobId, evaluationJobId } from "../../queues/registry.js";
import type { EnqueuedEvaluator, EvaluationEnqueuer, EvaluationPair } from "./enqueue.js";
import { BARRIER_DELAY_MS } from "../dependencies/barriers.js";
import type { DependencyMap } from "../dependencies/graph.js";
import { kindTraits } from "../evaluators/kinds.js";
import type { EvaluationPayload } from "./processor.js";

/**
 * Ordering evaluations on a span with BullMQ job dependencies (no polling).
 *
 * One `evaluate-target` job per (span, evaluator), as without dependencies. An evaluator with
 * dependencies that matched the span is added as the parent of a flow whose children are
 * delayed `evaluation-barrier` jobs, one per matched dependency; BullMQ keeps the parent in
 * waiting-children until every child has completed. When a dependency finishes on the span (its
 * run recorded, whatever the outcome, or its scores posted), it promotes its barriers
 * (`barrierJobId` is deterministic), the no-op barrier processor completes them, and the last one
 * releases the dependent. Because each barrier belongs to exactly one dependent, a DAG (diamonds
 * included) needs no shared children: A → {B, C} → D is four evaluation jobs and four barriers.
 * A dependency that did not match the span gets no barrier (finished with no scores).
 * The barriers' delay is only a safety net (a dependency whose job was lost); when it expires,
 * the dependent runs with what there is.
 */

/** The jobs of one span: plain ones and flows. */
export interface SpanJobs {
  plain: { payload: EvaluationPayload; jobId: string }[];
  flows: FlowSpec<"evaluate-target", "evaluation-barrier">[];
}

/**
 * The jobs that run `run` on one span: each waits, through a barrier, for its dependencies that
 * are in `waitFor`. Pure.
 * @param kinds - evaluator id → kind, for the barriers' safety delay.
 * @param tag - the re-run's tag (scores posted again), part of every job id.
 */
export function planSpanJobs(args: {
  workspaceId: string;
  spanId: string;
  run: readonly string[];
  waitFor: ReadonlySet<string>;
  dependsOn: DependencyMap;
  kinds: ReadonlyMap<string, string>;
  tag?: string;
}): SpanJobs {
  const { workspaceId, spanId, tag } = args;
  const out: SpanJobs = { plain: [], flows: [] };
  for (const evaluatorId of args.run) {
    const payload: EvaluationPayload = { workspaceId, targetType: "span", targetId: spanId, evaluatorId, ...(tag ? { tag } : {}) };
    const jobId = evaluationJobId(spanId, evaluatorId, tag);
    const waits = (args.dependsOn.get(evaluatorId) ?? []).filter((d) => args.waitFor.has(d) && d !== evaluatorId);
    if (waits.length === 0) {
      out.plain.push({ payload, jobId });
      continue;
    }
    out.flows.push({
      queue: "evaluate-target",
      payload,
      jobId,
      children: waits.map((dependsOnId) => ({
        queue: "evaluation-barrier" as const,
        payload: { targetType: "span" as const, targetId: spanId, evaluatorId, dependsOnId },
        jobId: barrierJobId(spanId, evaluatorId, dependsOnId, tag),
        delay: kindTraits(args.kinds.get(dependsOnId) ?? "").canBePosted ? BARRIER_DELAY_MS.external : BARRIER_DELAY_MS.code,
      })),
    });
  }
  return out;
}

/** Adds planned jobs: plain ones in bulk (an existing id is not added again), flows atomically. */
export async function addSpanJobs(queues: Queues, jobs: SpanJobs): Promise<void> {
  const CHUNK = 500;
  for (let i = 0; i < jobs.plain.length; i += CHUNK) await queues.addBulk("evaluate-target", jobs.plain.slice(i, i + CHUNK));
  for (let i = 0; i < jobs.flows.length; i += CHUNK) await queues.addFlows(jobs.flows.slice(i, i + CHUNK));
}

/**
 * The enqueuer of ingested spans (replaces the plain `queueEnqueuer`): external evaluators get
 * no job (their scores are posted), code evaluators with matched dependencies wait for them
 * through barriers (see the top of this file). A dependent that already has a run on the span (a
 * span sent again) is not queued again, and gets no barrier on a dependency that already has one.
 */
export function dependencyEnqueuer(deps: { prisma: PrismaClient; queues: Queues }): EvaluationEnqueuer {
  const { prisma, queues } = deps;
  return async (workspaceId, pairs, known) => {
    if (pairs.length === 0) return;
    const ids = [...new Set(pairs.map((p) => p.evaluatorId))];
    const evaluators = known && ids.every((id) => known.has(id)) ? ids.map((id) => known.get(id)!) : await readEvaluators(prisma, ids);
    const kinds = new Map(evaluators.map((e) => [e.id, e.kind]));
    const dependsOn: DependencyMap = new Map(evaluators.map((e) => [e.id, e.dependsOn]));
    const bySpan = new Map<string, string[]>();
    // Span targets (the only target type; flows, barriers and runs below are per span).
    for (const p of pairs) if (p.targetType === "span") bySpan.set(p.targetId, [...(bySpan.get(p.targetId) ?? []), p.evaluatorId]);
    const dependents = evaluators.filter((e) => e.dependsOn.length > 0).map((e) => e.id);
    const done = await finishedPairs(prisma, pairs, dependents, dependsOn);
    const all: SpanJobs = { plain: [], flows: [] };
    for (const [spanId, matched] of bySpan) {
      const run = matched.filter((id) => kindTraits(kinds.get(id) ?? "").computed && !done.has(`${spanId}/${id}`));
      const waitFor = new Set(matched.filter((id) => !done.has(`${spanId}/${id}`)));
      const jobs = planSpanJobs({ workspaceId, spanId, run, waitFor, dependsOn, kinds });
      all.plain.push(...jobs.plain);
      all.flows.push(...jobs.flows);
    }
    await addSpanJobs(queues, all);
  };
}

/** The evaluators as an enqueuer needs them. */
async function readEvaluators(prisma: PrismaClient, ids: string[]): Promise<EnqueuedEvaluator[]> {
  const rows = await prisma.evaluator.findMany({ where: { id: { in: ids } }, select: { id: true, kind: true, dependencies: { select: { dependsOnId: true }, orderBy: { position: "asc" } } } });
  return rows.map((e) => ({ id: e.id, kind: e.kind, dependsOn: e.dependencies.map((d) => d.dependsOnId) }));
}

/** `span/evaluator` of the pairs that take part in a dependency and already have a run (a span sent again). */
async function finishedPairs(prisma: PrismaClient, pairs: readonly EvaluationPair[], dependents: readonly string[], dependsOn: DependencyMap): Promise<Set<string>> {
  if (dependents.length === 0) return new Set();
  const involved = new Set([...dependents, ...dependents.flatMap((id) => dependsOn.get(id) ?? [])]);
  const spanIds = [...new Set(pairs.filter((p) => p.targetType === "span" && involved.has(p.evaluatorId)).map((p) => p.targetId))];
  const runs = await prisma.run.findMany({ where: { spanId: { in: spanIds }, evaluatorId: { in: [...involved] } }, select: { spanId: true, evaluatorId: true } });
  return new Set(runs.map((r) => `${r.spanId}/${r.evaluatorId}`));
}

/**
 * Releases what waits for `evaluatorId` on a span: promotes the barrier of each dependent (with
 * the re-run's tag). Idempotent: a barrier that is gone or already promoted is left alone.
 * @returns how many barriers were promoted.
 */
export async function releaseDependents(deps: { prisma: PrismaClient; queues: Queues }, spanId: string, evaluatorId: string, tag?: string): Promise<number> {
  const dependents = await deps.prisma.evaluatorDependency.findMany({ where: { dependsOnId: evaluatorId }, select: { evaluatorId: true } });
  const promoted = await Promise.all(dependents.map((d) => deps.queues.promote("evaluation-barrier", barrierJobId(spanId, d.evaluatorId, evaluatorId, tag))));
  return promoted.filter(Boolean).length;
}
