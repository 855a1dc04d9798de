import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import { evaluationJobId } from "../../queues/registry.js";
import type { AfterEvaluation, EvaluationPayload } from "./processor.js";
import { matchSpan } from "../spans/matching.js";
import { addSpanJobs, planSpanJobs, releaseDependents } from "./flows.js";
import { barrierJobId } from "../../queues/registry.js";
import { downstreamOf } from "../dependencies/graph.js";
import { declaredDependencies, isCurrent, spanInputs, spansInputs } from "../dependencies/input-runs.js";
import { toDependencyMap, workspaceEdges } from "../dependencies/store.js";
import { COMPUTED_KINDS } from "../evaluators/kinds.js";
import { systemClock, type Clock } from "../../lib/clock.js";
import { staleGroupsAfter } from "./group-staleness.js";

/** What releasing and re-running need. */
export interface ReleaseDeps {
  prisma: PrismaClient;
  queues: Queues;
  /** Where a stale group's next due time is read from (default: the machine's clock). */
  clock?: Clock;
}

/**
 * The `afterEvaluation` hook of the evaluation processor, for a batch of finished evaluations:
 * once an evaluator has finished on a span, (1) promotes the barriers of its dependents (with
 * the job's tag), and (2) queues a re-run of each direct dependent whose run on the span is now
 * stale (it read an older run of this evaluator): with the job's tag when there is one, so a
 * dependent that is already part of the re-run flow is not queued twice (same job id), else
 * tagged with this evaluator's run id; (3) makes stale the trace and session runs that read
 * another of its runs on those spans (group-staleness.ts). Reads are per batch: the dependents of each evaluator
 * once, their runs on the batch's spans in one query.
 */
export function createAfterEvaluation(deps: ReleaseDeps): AfterEvaluation {
  const { prisma, queues } = deps;
  return async (payloads) => {
    const byEvaluator = new Map<string, EvaluationPayload[]>();
    for (const p of payloads) byEvaluator.set(p.evaluatorId, [...(byEvaluator.get(p.evaluatorId) ?? []), p]);
    for (const [evaluatorId, list] of byEvaluator) {
      const edges = await prisma.evaluatorDependency.findMany({ where: { dependsOnId: evaluatorId }, select: { evaluatorId: true, evaluator: { select: { target: true } } } });
      if (edges.length === 0) continue;
      const dependents = edges.map((d) => d.evaluatorId);
      const groupDependents = edges.filter((d) => d.evaluator.target !== "span").map((d) => d.evaluatorId);
      await staleGroupsAfter({ prisma, clock: deps.clock ?? systemClock }, { workspaceId: list[0]!.workspaceId, evaluatorId, spanIds: list.filter((p) => p.targetType === "span").map((p) => p.targetId), dependents: groupDependents });
      await Promise.all(list.flatMap((p) => dependents.map((d) => queues.promote("evaluation-barrier", barrierJobId(p.targetId, d, evaluatorId, p.tag)))));
      // Span targets only (the targets of dependencies today).
      const spanIds = [...new Set(list.filter((p) => p.targetType === "span").map((p) => p.targetId))];
      const runs = await prisma.run.findMany({ where: { spanId: { in: spanIds }, evaluatorId: { in: [evaluatorId, ...dependents] } }, select: { id: true, spanId: true, evaluatorId: true, inputRunIds: true } });
      const own = new Map(runs.filter((r) => r.evaluatorId === evaluatorId).map((r) => [r.spanId!, r.id]));
      const jobs: { payload: EvaluationPayload; jobId: string }[] = [];
      for (const dependentId of dependents) {
        const theirs = runs.filter((r) => r.evaluatorId === dependentId);
        if (theirs.length === 0) continue;
        const declared = await declaredDependencies(prisma, dependentId);
        const inputs = await spansInputs(prisma, theirs.map((r) => r.spanId!), declared);
        for (const run of theirs) {
          if (isCurrent(run.inputRunIds, declared, inputs.get(run.spanId!) ?? new Map())) continue;
          const payload = list.find((p) => p.targetType === "span" && p.targetId === run.spanId)!;
          const tag = payload.tag ?? own.get(run.spanId!);
          if (!tag) continue;
          jobs.push({ payload: { workspaceId: payload.workspaceId, targetType: payload.targetType, targetId: payload.targetId, evaluatorId: dependentId, tag }, jobId: evaluationJobId(payload.targetId, dependentId, tag) });
        }
      }
      await queues.addBulk("evaluate-target", jobs);
    }
  };
}

/**
 * After scores of `evaluatorId` were posted on a span: re-runs, in dependency order, every code
 * evaluator downstream of it (directly or not) that already has a run on the span, as one set of
 * flows tagged `tag` (each waits for its re-run dependencies through barriers), then releases the
 * dependents that were waiting for these scores. Downstream evaluators with no run yet are
 * waiting (or did not match) and read the new scores when they run.
 * @returns the evaluators queued again.
 */
export async function rerunAfterPost(deps: ReleaseDeps, args: { workspaceId: string; spanId: string; evaluatorId: string; tag: string }): Promise<string[]> {
  const { prisma, queues } = deps;
  const { workspaceId, spanId, evaluatorId, tag } = args;
  const dependsOn = toDependencyMap(await workspaceEdges(prisma, workspaceId));
  const downstream = [...downstreamOf(evaluatorId, dependsOn)];
  let affected: string[] = [];
  if (downstream.length) {
    const span = await prisma.span.findUniqueOrThrow({ where: { id: spanId } });
    const [evaluators, runs] = await Promise.all([
      prisma.evaluator.findMany({ where: { id: { in: downstream }, kind: { in: [...COMPUTED_KINDS] }, archivedAt: null } }),
      prisma.run.findMany({ where: { spanId, evaluatorId: { in: downstream } }, select: { evaluatorId: true } }),
    ]);
    const withRun = new Set(runs.map((r) => r.evaluatorId));
    affected = evaluators.filter((e) => withRun.has(e.id) && matchSpan(e, span).matched).map((e) => e.id);
    const kinds = new Map(evaluators.map((e) => [e.id, e.kind]));
    await addSpanJobs(queues, planSpanJobs({ workspaceId, spanId, run: affected, waitFor: new Set(affected), dependsOn, kinds, tag }));
  }
  await staleGroupsAfter({ prisma, clock: deps.clock ?? systemClock }, { workspaceId, evaluatorId, spanIds: [spanId] });
  await releaseDependents(deps, spanId, evaluatorId);
  return affected;
}
