import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import { evaluationJobId } from "../../queues/registry.js";
import type { AfterEvaluation } from "../runs/processor.js";
import { matchSpan } from "../spans/matching.js";
import { addSpanJobs, planSpanJobs, releaseDependents } from "./flows.js";
import { downstreamOf } from "./graph.js";
import { declaredDependencies, isCurrent, spanInputs } from "./inputs.js";
import { toDependencyMap, workspaceEdges } from "./store.js";

/** What releasing and re-running need. */
export interface ReleaseDeps {
  prisma: PrismaClient;
  queues: Queues;
}

/**
 * The `afterEvaluation` hook of the evaluation processor: once an evaluator has finished on a
 * span, (1) promotes the barriers of its dependents (with the job's tag), and (2) queues a re-run
 * of each direct dependent whose run on the span is now stale (it read an older run of this
 * evaluator): with the job's tag when there is one, so a dependent that is already part of the
 * re-run flow is not queued twice (same job id), else tagged with this evaluator's run id.
 */
export function createAfterEvaluation(deps: ReleaseDeps): AfterEvaluation {
  const { prisma, queues } = deps;
  return async (payload) => {
    const { workspaceId, spanId, evaluatorId } = payload;
    await releaseDependents(deps, spanId, evaluatorId, payload.tag);
    const dependents = await prisma.evaluatorDependency.findMany({ where: { dependsOnId: evaluatorId }, select: { evaluatorId: true } });
    if (dependents.length === 0) return;
    const runs = await prisma.run.findMany({ where: { spanId, evaluatorId: { in: [evaluatorId, ...dependents.map((d) => d.evaluatorId)] } }, select: { id: true, evaluatorId: true, inputRunIds: true } });
    const own = runs.find((r) => r.evaluatorId === evaluatorId);
    const stale = [];
    for (const run of runs.filter((r) => r.evaluatorId !== evaluatorId)) {
      const declared = await declaredDependencies(prisma, run.evaluatorId);
      if (!isCurrent(run.inputRunIds, declared, await spanInputs(prisma, spanId, declared))) stale.push(run.evaluatorId);
    }
    const tag = payload.tag ?? own?.id;
    if (stale.length === 0 || !tag) return;
    await queues.addBulk("evaluate-span", stale.map((id) => ({ payload: { workspaceId, spanId, evaluatorId: id, tag }, jobId: evaluationJobId(spanId, id, tag) })));
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
      prisma.evaluator.findMany({ where: { id: { in: downstream }, kind: "code", archivedAt: null } }),
      prisma.run.findMany({ where: { spanId, evaluatorId: { in: downstream } }, select: { evaluatorId: true } }),
    ]);
    const withRun = new Set(runs.map((r) => r.evaluatorId));
    affected = evaluators.filter((e) => withRun.has(e.id) && matchSpan(e, span).matched).map((e) => e.id);
    const kinds = new Map(evaluators.map((e) => [e.id, e.kind]));
    await addSpanJobs(queues, planSpanJobs({ workspaceId, spanId, run: affected, waitFor: new Set(affected), dependsOn, kinds, tag }));
  }
  await releaseDependents(deps, spanId, evaluatorId);
  return affected;
}
