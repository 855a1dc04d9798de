import type { DatasetItem, ExperimentEvaluator, TemplateVersion } from "../../generated/prisma/client.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { EvaluationCore } from "../evaluation/evaluate-batch.js";
import { InputsByTarget, inputRunOf } from "../evaluation/inputs.js";
import { memberSubject } from "../evaluation/subject.js";
import type { InputRun } from "../dependencies/input-runs.js";
import { WORKER_CRASH_LIMIT } from "../runs/processor.js";
import { objectOf } from "../../lib/json-column.js";
import { batchRange } from "./batch-plan.js";
import { orderEvaluators } from "../dependencies/graph.js";
import { dependencyIds, loadDependencies } from "./dependencies.js";
import { itemDocumentFor } from "./group-document.js";
import { settingsOf } from "../evaluators/group-settings.js";
import type { GroupTargetType, TargetType } from "../../lib/closed-lists.js";
import { experimentProgress } from "./progress.js";
import { recordExperimentRuns, type ExperimentRunRecord } from "./record.js";

/** What a batch job knows about its attempt (from BullMQ). */
export interface BatchAttempt {
  /** 1 on the first attempt. */
  attempt: number;
  /** True when no retry follows: sandbox faults are then recorded instead of retried. */
  last: boolean;
  /** Times BullMQ found the job stalled (its worker died or hung while processing it). */
  crashes?: number;
}

/** What one batch did, for logs and tests. */
export interface BatchOutcome {
  /** Runs recorded by this attempt. */
  recorded: number;
  /** (item, evaluator) pairs already finished by an earlier attempt or worker, not run again. */
  alreadyDone: number;
  /** Runs left for the next attempt because the sandbox failed. */
  deferred: number;
  /** Runs left waiting for an external dependency's posted scores (queued again when they are posted or the wait ends). */
  waiting: number;
  /** True when the experiment was cancelled (or gone) and the batch stopped. */
  stopped: boolean;
}

/** Thrown when a batch leaves runs for a retry (a sandbox fault); BullMQ retries with backoff. */
export class BatchRetryError extends Error {
  constructor(readonly deferred: number) {
    super(`${deferred} runs hit a sandbox fault; the batch is retried (finished runs are kept)`);
    this.name = "BatchRetryError";
  }
}

type Member = ExperimentEvaluator & { templateVersion: TemplateVersion; evaluator: { name: string; kind: string; isolation: string; limits: unknown; target: string; groupSettings: unknown; template: { limits: unknown } | null } };

/**
 * The processor of the `experiment-batch` queue: runs the experiment's evaluators over the items
 * of one batch through the warm runners, evaluator by evaluator (dependencies first), with all of
 * the batch's items in one `execute` call. Exactly once per (item, evaluator): pairs that already
 * have a run are skipped, and the unique index settles a race with another worker. A restarted
 * worker therefore resumes a batch without redoing finished items.
 */
export function createExperimentBatchProcessor(deps_: { prisma: PrismaClient; core: EvaluationCore; logger: Logger }) {
  const { prisma, core, logger } = deps_;

  /** True when the experiment may go on (not cancelled, not deleted). */
  async function live(experimentId: string): Promise<boolean> {
    const row = await prisma.experiment.findUnique({ where: { id: experimentId }, select: { status: true } });
    return row !== null && row.status !== "cancelled";
  }

  /** The stored runs of an evaluator on items of the experiment, as dependents read them. */
  function storedRuns(experimentId: string, evaluatorId: string, itemIds: string[]) {
    return prisma.run.findMany({
      where: { experimentId, evaluatorId, datasetItemId: { in: itemIds } },
      select: { id: true, datasetItemId: true, evaluatorId: true, outcome: true, scores: { select: { name: true, value: true, dataType: true, numericValue: true, higherIsBetter: true }, orderBy: { position: "asc" } } },
    });
  }

  /** Marks the experiment completed when no item is pending (idempotent; only from running). */
  async function completeIfDone(experiment: { id: string; itemCount: number }, evaluatorCount: number): Promise<void> {
    const progress = await experimentProgress(prisma, experiment, evaluatorCount);
    if (progress.pending === 0) {
      await prisma.experiment.updateMany({ where: { id: experiment.id, status: "running" }, data: { status: "completed", finishedAt: new Date() } });
    }
  }

  return async function processBatch(payload: { experimentId: string; batch: number }, attempt: BatchAttempt): Promise<BatchOutcome> {
    const outcome: BatchOutcome = { recorded: 0, alreadyDone: 0, deferred: 0, waiting: 0, stopped: false };
    const experiment = await prisma.experiment.findUnique({
      where: { id: payload.experimentId },
      include: { evaluators: { include: { templateVersion: true, evaluator: { select: { name: true, kind: true, isolation: true, limits: true, target: true, groupSettings: true, connectionId: true, blockedAt: true, blockedReason: true, template: { select: { limits: true } } } } }, orderBy: { position: "asc" } } },
    });
    if (!experiment || experiment.status === "cancelled") return { ...outcome, stopped: true };
    if (experiment.status === "queued") {
      await prisma.experiment.updateMany({ where: { id: experiment.id, status: "queued" }, data: { status: "running", startedAt: new Date() } });
    }
    const { from, to } = batchRange(experiment, payload.batch);
    const items = await prisma.datasetItem.findMany({ where: { datasetId: experiment.datasetId, position: { gte: from, lt: to } }, orderBy: { position: "asc" } });
    const members = new Map(experiment.evaluators.map((m) => [m.evaluatorId, m as Member]));
    const dependencies = await loadDependencies(prisma, [...members.keys()]);
    const order = orderEvaluators([...members.keys()], dependencyIds(dependencies));
    const needScores = [...dependencies.values()].some((list) => list.length > 0);

    const existing = await prisma.run.findMany({
      where: { experimentId: experiment.id, datasetItemId: { in: items.map((i) => i.id) } },
      select: {
        id: true,
        datasetItemId: true,
        evaluatorId: true,
        outcome: true,
        ...(needScores ? { scores: { select: { name: true, value: true, dataType: true, numericValue: true, higherIsBetter: true }, orderBy: { position: "asc" as const } } } : {}),
      },
    });
    const finished = new Set(existing.map((r) => `${r.datasetItemId}/${r.evaluatorId}`));
    // What dependents read on each item: the current run of each evaluator there (evaluation/inputs.ts).
    const current = new InputsByTarget();
    if (needScores) for (const r of existing) current.set(r.datasetItemId!, { id: r.id, evaluatorId: r.evaluatorId, outcome: r.outcome, scores: (r as { scores?: InputRun["scores"] }).scores ?? [] });

    if ((attempt.crashes ?? 0) >= WORKER_CRASH_LIMIT) {
      // A poison pill: every worker that took this batch died. Its unfinished runs are recorded
      // with the reason, nothing is run again (a retry would end the next worker too).
      const crashes = attempt.crashes!;
      const message = `the worker running this experiment batch ended ${crashes} times before it finished; its remaining runs are not run again`;
      logger.error({ experimentId: experiment.id, batch: payload.batch, crashes }, "experiment batch ended its worker repeatedly; remaining runs recorded as sandbox_error");
      const now = new Date();
      const result = { outcome: "sandbox_error" as const, scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "WorkerCrashed", message, traceback: "" } };
      const records: ExperimentRunRecord[] = [];
      for (const evaluatorId of order) {
        const member = members.get(evaluatorId)!;
        for (const item of items) {
          if (finished.has(`${item.id}/${evaluatorId}`)) outcome.alreadyDone += 1;
          else records.push({ workspaceId: experiment.workspaceId, experimentId: experiment.id, evaluatorId, templateVersionId: member.templateVersionId, params: objectOf(member.params), attempts: attempt.attempt, datasetItemId: item.id, libraryVersions: {}, result, startedAt: now, finishedAt: now });
        }
      }
      outcome.recorded += (await recordExperimentRuns(prisma, records)).length;
      await completeIfDone(experiment, members.size);
      return outcome;
    }

    // External dependencies are waited for until the experiment's wait ends; then dependents run without them.
    const waitOver = Date.now() >= experiment.createdAt.getTime() + experiment.dependencyWaitSeconds * 1000;
    const waitingPairs = new Set<string>();
    for (const evaluatorId of order) {
      const member = members.get(evaluatorId)!;
      const deps = dependencies.get(evaluatorId) ?? [];
      const unfinished: DatasetItem[] = items.filter((item) => !finished.has(`${item.id}/${evaluatorId}`));
      outcome.alreadyDone += items.length - unfinished.length;
      // An item runs after every dependency has finished on it: a member (else it waits for the
      // retry), an external one (posted, else it waits until the wait ends); others are missing.
      const ready: DatasetItem[] = [];
      for (const item of unfinished) {
        const open = deps.filter((d) => !finished.has(`${item.id}/${d.dependsOnId}`) && (members.has(d.dependsOnId) || (d.external && !waitOver)));
        if (open.length === 0) ready.push(item);
        else if (open.some((d) => d.external || waitingPairs.has(`${item.id}/${d.dependsOnId}`))) {
          waitingPairs.add(`${item.id}/${evaluatorId}`);
          outcome.waiting += 1;
        } else outcome.deferred += 1;
      }
      if (ready.length === 0) continue;
      if (!(await live(experiment.id))) return { ...outcome, stopped: true };
      const base = { workspaceId: experiment.workspaceId, experimentId: experiment.id, evaluatorId, attempts: attempt.attempt };
      const subject = memberSubject(experiment.workspaceId, evaluatorId, member, deps);
      const dependsOn = deps.map((d) => d.dependsOnId);
      // A trace or session evaluator sees the item as a trace or a session, with its caps as they are now (experiments/group-document.ts).
      const target = member.evaluator.target as TargetType;
      const settings = target === "span" ? null : settingsOf(target as GroupTargetType, member.evaluator.groupSettings);
      const evaluated = await core.evaluateBatch(
        subject,
        ready.map((item) => ({ target: item, inputs: current.inputsOf(item.id, dependsOn), lastAttempt: attempt.last, document: (scores) => itemDocumentFor(target, settings, item, scores) })),
      );
      const records: ExperimentRunRecord[] = [];
      for (const answer of evaluated) {
        if (answer.status !== "done") outcome.deferred += 1; // retried with the job
        else records.push({ ...base, datasetItemId: answer.target.id, ...answer.run });
      }
      const inserted = await recordExperimentRuns(prisma, records);
      for (const r of records) finished.add(`${r.datasetItemId}/${evaluatorId}`);
      if (needScores) {
        for (const run of inserted) current.set(run.record.target.datasetItemId, inputRunOf({ ...run, evaluatorId }));
        // A run another worker recorded first (the unique index kept its copy): dependents read that one.
        if (inserted.length < records.length) {
          const won = new Set(inserted.map((r) => r.record.target.datasetItemId));
          for (const r of await storedRuns(experiment.id, evaluatorId, records.filter((x) => !won.has(x.datasetItemId)).map((x) => x.datasetItemId))) current.set(r.datasetItemId!, r);
        }
      }
      outcome.recorded += inserted.length;
    }
    if (outcome.deferred > 0) {
      logger.warn({ experimentId: experiment.id, batch: payload.batch, deferred: outcome.deferred }, "experiment batch: sandbox faults, retrying");
      throw new BatchRetryError(outcome.deferred);
    }
    if (outcome.waiting > 0) logger.info({ experimentId: experiment.id, batch: payload.batch, waiting: outcome.waiting }, "experiment batch: runs wait for posted scores");
    await completeIfDone(experiment, members.size);
    return outcome;
  };
}

/** The batch processor. */
export type ExperimentBatchProcessor = ReturnType<typeof createExperimentBatchProcessor>;
