import { moveRunsToHistory } from "../evaluation/history.js";
import { BadUserInputError, NotFoundError } from "../../lib/errors.js";
import { parseIssues } from "../../lib/validation.js";
import { isUuid } from "../../lib/uuid.js";
import type { Principal } from "../../lib/principal.js";
import type { ReleaseDeps } from "../runs/release.js";
import { postedScoresSchema } from "./schemas.js";
import { insertPostedRun, postingEvaluator, type SubmitScoresResult } from "./submit.js";

/** The input of submitScores for a dataset item of an experiment. */
export interface SubmitExperimentScoresInput {
  experimentId: string;
  /** The dataset item (its id). */
  datasetItemId: string;
  /** The external evaluator: its id or its name. */
  evaluator: string;
  scores: unknown;
}

/**
 * Posts the scores of an external evaluator for one dataset item of an experiment, where the
 * experiment's evaluators that depend on it wait for them (see experiments/batch-processor.ts). Stored as a
 * run of the experiment (outcome ok); posting again replaces it, and the runs of the dependents
 * (transitively, among the experiment's evaluators) on that item are deleted so that they run
 * again with the new scores. Then the item's batch is queued (job id tagged with the new run).
 * @throws BadUserInputError (bad scores, a code evaluator, an item of another dataset or past the experiment's items);
 *   NotFoundError for the experiment, item or evaluator.
 */
export async function submitExperimentScores(deps: ReleaseDeps, principal: Principal, input: SubmitExperimentScoresInput): Promise<SubmitScoresResult> {
  const { prisma, queues } = deps;
  const { workspaceId } = principal;
  const { data: scores, issues } = parseIssues(postedScoresSchema, input.scores, "scores");
  const experiment = isUuid(input.experimentId) ? await prisma.experiment.findFirst({ where: { id: input.experimentId, workspaceId } }) : null;
  if (!experiment) throw new NotFoundError("experiment", input.experimentId);
  const item = isUuid(input.datasetItemId) ? await prisma.datasetItem.findFirst({ where: { id: input.datasetItemId, workspaceId } }) : null;
  if (!item) throw new NotFoundError("dataset item", input.datasetItemId);
  if (item.datasetId !== experiment.datasetId || item.position >= experiment.itemCount) {
    issues.push({ path: "datasetItemId", message: "is not an item of this experiment (another dataset, or added after the experiment was created)" });
  }
  const evaluator = await postingEvaluator(prisma, workspaceId, input.evaluator, issues);
  if (issues.length || !scores) throw new BadUserInputError(issues);

  const { run, replaced, rerun } = await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`item:${experiment.id}:${item.id}`}, 0))`;
    // Replaced runs stay readable as history (the one replace policy, evaluation/history.ts).
    const earlier = await tx.run.findMany({ where: { experimentId: experiment.id, datasetItemId: item.id, evaluatorId: evaluator.id }, select: { id: true } });
    await moveRunsToHistory(tx, earlier.map((r) => r.id), { reason: "scores_reposted" });
    // The experiment's evaluators downstream of this one, transitively: they read these scores.
    const members = new Set((await tx.experimentEvaluator.findMany({ where: { experimentId: experiment.id }, select: { evaluatorId: true } })).map((m) => m.evaluatorId));
    const downstream: string[] = [];
    let frontier = [evaluator.id];
    while (frontier.length) {
      const edges = await tx.evaluatorDependency.findMany({ where: { dependsOnId: { in: frontier } }, select: { evaluatorId: true } });
      frontier = [...new Set(edges.map((e) => e.evaluatorId))].filter((id) => members.has(id) && !downstream.includes(id));
      downstream.push(...frontier);
    }
    const stale = await tx.run.findMany({ where: { experimentId: experiment.id, datasetItemId: item.id, evaluatorId: { in: downstream } }, select: { id: true } });
    await moveRunsToHistory(tx, stale.map((r) => r.id), { reason: "inputs_changed" });
    const created = await insertPostedRun(tx, { workspaceId, evaluatorId: evaluator.id }, { experimentId: experiment.id, datasetItemId: item.id }, scores);
    if (stale.length > 0) await tx.experiment.updateMany({ where: { id: experiment.id, status: "completed" }, data: { status: "running", finishedAt: null } });
    return { run: created, replaced: earlier.length > 0, rerun: stale.length > 0 ? downstream : [] };
  });
  const batch = Math.floor(item.position / experiment.batchSize);
  await queues.add("experiment-batch", { experimentId: experiment.id, batch }, { jobId: `${experiment.id}_${batch}_post_${run.id}` });
  return { run, replaced, rerun };
}
