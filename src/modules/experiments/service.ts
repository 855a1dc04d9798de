import { moveRunsToHistory } from "../evaluation/history.js";
import type { DatasetItem, Experiment } from "../../generated/prisma/client.js";
import type { ExperimentEvaluatorSource } from "../../lib/closed-lists.js";
import { BadUserInputError, NotFoundError, type InputIssue } from "../../lib/errors.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { parseIssues } from "../../lib/validation.js";
import type { Queues } from "../../queues/queues.js";
import { specsOf } from "../templates/store.js";
import { asJson, objectOf } from "../../lib/json-column.js";
import { isUuid, uuidOrNil } from "../../lib/uuid.js";
import type { Tx } from "../../lib/prisma.js";
import { resolveParams, valueProblems } from "../templates/values.js";
import type { Principal } from "../../lib/principal.js";
import { batchJobs, batchesOf } from "./batch-plan.js";
import { experimentProgress, FAILED_OUTCOMES_SQL, type ExperimentProgress as BaseProgress } from "./progress.js";
import { experimentItemWaits, experimentWaits, type ExperimentEvaluatorWait, type ExperimentItemWait, type WaitingExperiment } from "./waiting.js";
import { compareExperiments, type Comparison } from "./compare.js";
import { itemWhere, offScaleScores } from "./items.js";
import { compareExperimentsInputSchema, createExperimentInputSchema, DEFAULT_BATCH_SIZE, DEFAULT_DEPENDENCY_WAIT_SECONDS, experimentItemFilterSchema } from "./schemas.js";
import { missingDependencyCounts, outcomeCounts, scoreSummaries, type MissingDependencyCount, type OutcomeCount, type ScoreSummary } from "./summary.js";
import { watchSnapshots, type Snapshot } from "./watch.js";
import { syncInferredDependencies } from "../dependencies/store.js";
import { kindOfTemplate, kindTraits } from "../evaluators/kinds.js";

export type { ExperimentEvaluatorWait, ExperimentItemWait, ExperimentWaits } from "./waiting.js";

/**
 * Where an experiment is (progress.ts) and what it waits for (waiting.ts): items still waiting
 * for posted scores of an external evaluator (of the pending ones), per evaluator, and when the
 * wait ends; so a wait is never silent.
 */
export type ExperimentProgress = BaseProgress & {
  /** Pending items with an evaluator that waits for posted scores. */
  waiting: number;
  /** When the experiment's wait ends and they run without the missing scores (null when nothing waits). */
  waitingUntil: Date | null;
  /** Per evaluator: its items that wait, for what, until when. */
  waits: ExperimentEvaluatorWait[];
};
export type { Comparison, ItemChange, ScoreDelta } from "./compare.js";
export type { MissingDependencyCount, OutcomeCount, ScoreSummary } from "./summary.js";

/** A dataset item of an experiment (its runs there are read by the experiment's id). */
export interface ExperimentItem {
  item: DatasetItem;
  experimentId: string;
}

/** What the progress subscription sends: the experiment's status and progress, when they change. */
export type ExperimentProgressEvent = Snapshot<ExperimentProgress> & { experimentId: string };

/** One evaluator of a new experiment, resolved inside the creating transaction. */
interface Member {
  evaluatorId: string;
  templateVersionId: string;
  params: Record<string, unknown>;
  source: ExperimentEvaluatorSource;
}

/** A live evaluator of the workspace with the version and ctx.params it runs now; issues otherwise. */
async function evaluatorMember(tx: Tx, workspaceId: string, id: string, path: string, issues: InputIssue[]): Promise<Member | null> {
  const evaluator = isUuid(id) ? await tx.evaluator.findFirst({ where: { id, workspaceId, archivedAt: null }, include: { template: true } }) : null;
  if (!evaluator) throw new NotFoundError("evaluator", id);
  if (evaluator.templateId === null || evaluator.template === null) {
    issues.push({ path, message: `evaluator "${evaluator.name}" is external: its scores are posted through the API, so it cannot run over a dataset` });
    return null;
  }
  const version = await tx.templateVersion.findUniqueOrThrow({
    where: { templateId_version: { templateId: evaluator.templateId, version: evaluator.pinnedVersion ?? evaluator.template.latestVersion } },
  });
  const values = objectOf(evaluator.params);
  for (const p of valueProblems(specsOf(version), values)) issues.push({ path, message: `evaluator "${evaluator.name}": ${p.message}` });
  return { evaluatorId: evaluator.id, templateVersionId: version.id, params: resolveParams(specsOf(version), values), source: "evaluator" };
}

/**
 * A template to run with its defaults: an archived, disabled evaluator (named like the template,
 * pinned to its latest version, no values) is created for the experiment, so its runs and scores
 * have an evaluator like every other run and never run on live spans. Refused when a required
 * setting has no default.
 */
async function templateMember(tx: Tx, workspaceId: string, id: string, path: string, issues: InputIssue[]): Promise<Member | null> {
  const template = isUuid(id) ? await tx.template.findFirst({ where: { id, workspaceId, deletedAt: null } }) : null;
  if (!template) throw new NotFoundError("template", id);
  if (kindTraits(kindOfTemplate(template.kind)).usesConnection) {
    issues.push({ path, message: `template "${template.name}" is an llm template: a judge needs a connection; create a judge evaluator of it (with connectionName) and give it in evaluatorIds` });
    return null;
  }
  const version = await tx.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId: template.id, version: template.latestVersion } } });
  const missing = valueProblems(specsOf(version), {}).filter((p) => p.kind === "missing");
  if (missing.length) {
    for (const p of missing) issues.push({ path, message: `template "${template.name}": ${p.message.replace(": set a value", "")}; create an evaluator that sets it` });
    return null;
  }
  const evaluator = await tx.evaluator.create({
    data: { workspaceId, name: template.name, liveName: null, templateId: template.id, pinnedVersion: version.version, enabled: false, archivedAt: new Date() },
  });
  // Its literal ctx.score reads are its dependencies, as for a saved evaluator.
  const refused = await syncInferredDependencies(tx, evaluator, version.scoreReads, path);
  if (refused.length) {
    issues.push(...refused);
    return null;
  }
  return { evaluatorId: evaluator.id, templateVersionId: version.id, params: resolveParams(specsOf(version), {}), source: "template" };
}

/**
 * Adds the code dependencies of the members, transitively, as members of source "dependency"
 * (run with their own setting values, like a listed evaluator), so no dependency a listed
 * evaluator reads is silently missing. External dependencies are not members: their scores are
 * posted for the experiment's items (submitScores) and dependents wait for them.
 * @returns whether some member depends on an external evaluator.
 */
async function addDependencyMembers(tx: Tx, workspaceId: string, members: Member[], issues: InputIssue[]): Promise<boolean> {
  let external = false;
  const seen = new Set(members.map((m) => m.evaluatorId));
  let frontier = [...seen];
  while (frontier.length) {
    const edges = await tx.evaluatorDependency.findMany({
      where: { evaluatorId: { in: frontier } },
      include: { dependsOn: { select: { id: true, kind: true, name: true, archivedAt: true } } },
      orderBy: [{ evaluatorId: "asc" }, { position: "asc" }],
    });
    frontier = [];
    for (const edge of edges) {
      const dep = edge.dependsOn;
      if (kindTraits(dep.kind).canBePosted) external = true;
      if (kindTraits(dep.kind).canBePosted || seen.has(dep.id)) continue;
      seen.add(dep.id);
      if (dep.archivedAt) {
        issues.push({ path: "evaluatorIds", message: `dependency "${dep.name}" is archived: it cannot run in the experiment` });
        continue;
      }
      const member = await evaluatorMember(tx, workspaceId, dep.id, "evaluatorIds", issues);
      if (member) {
        members.push({ ...member, source: "dependency" });
        frontier.push(dep.id);
      }
    }
  }
  return external;
}

/**
 * Refuses two evaluators of one experiment with the same name: their summary groups, items filter
 * and `compareExperiments` (which matches evaluators by name, as Langfuse and Opik key scores by
 * name) could not tell them apart. A template run with its defaults is named like the template, so
 * `--evaluator Readability --template Readability` is refused too.
 * @param paths the input field of each member given directly (a dependency has none: "evaluatorIds").
 * @throws BadUserInputError naming both fields and the name.
 */
async function refuseSameNames(tx: Tx, members: Member[], paths: Map<string, string>): Promise<void> {
  const ids = [...new Set(members.map((m) => m.evaluatorId))];
  const rows = await tx.evaluator.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  const byName = new Map<string, string>();
  const issues: InputIssue[] = [];
  for (const id of ids) {
    const name = rows.find((r) => r.id === id)!.name;
    const first = byName.get(name);
    if (first === undefined) {
      byName.set(name, id);
      continue;
    }
    const a = paths.get(first) ?? "evaluatorIds (a dependency)";
    const b = paths.get(id) ?? "evaluatorIds (a dependency)";
    issues.push({ path: paths.get(id) ?? "evaluatorIds", message: `${a} and ${b} are both named "${name}": give each evaluator of an experiment its own name (summaries and compareExperiments match evaluators by name)` });
  }
  if (issues.length) throw new BadUserInputError(issues);
}

/**
 * Experiments: evaluators run over a dataset's items as queued batch jobs (see batch-processor.ts).
 * Every read and write is scoped to the caller's workspace.
 */
export function createExperimentService(deps: { prisma: PrismaClient; queues: Queues; logger: Logger }) {
  const { prisma, queues, logger } = deps;

  /** An experiment of the workspace. @throws NotFoundError. */
  async function getExperiment(workspaceId: string, id: string): Promise<Experiment> {
    const experiment = isUuid(id) ? await prisma.experiment.findFirst({ where: { id, workspaceId } }) : null;
    if (!experiment) throw new NotFoundError("experiment", id);
    return experiment;
  }

  /** The progress of an experiment (counted from its runs) and what its pending items wait for. */
  async function progress(experiment: WaitingExperiment): Promise<ExperimentProgress> {
    const evaluators = await prisma.experimentEvaluator.count({ where: { experimentId: experiment.id } });
    const [base, waits] = await Promise.all([experimentProgress(prisma, experiment, evaluators), experimentWaits(prisma, experiment)]);
    return { ...base, waiting: waits.items, waitingUntil: waits.until, waits: waits.evaluators };
  }

  /** Runs per evaluator and outcome of an experiment of the workspace. @throws NotFoundError. */
  async function runsByOutcome(principal: Principal, experimentId: string): Promise<OutcomeCount[]> {
    return outcomeCounts(prisma, (await getExperiment(principal.workspaceId, experimentId)).id);
  }

  /** Queues the given batches of an experiment (ids only; a job id already queued is not queued twice). */
  async function enqueue(experiment: Pick<Experiment, "id" | "retries">, batches: readonly number[]): Promise<void> {
    await queues.addBulk("experiment-batch", batchJobs(experiment, batches));
  }

  return {
    getExperiment,

    /**
     * Creates an experiment over every item the dataset has now and queues one job per batch.
     * Evaluator versions and ctx.params are fixed here, so every batch (also a resumed or retried
     * one) runs the same code with the same settings.
     * @throws BadUserInputError, NotFoundError (dataset, evaluator or template of another workspace too).
     */
    async createExperiment(principal: Principal, input: unknown): Promise<Experiment> {
      const { data, issues } = parseIssues(createExperimentInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const workspaceId = principal.workspaceId;
      const dataset = isUuid(data.datasetId) ? await prisma.dataset.findFirst({ where: { id: data.datasetId, workspaceId } }) : null;
      if (!dataset) throw new NotFoundError("dataset", data.datasetId);
      if (dataset.itemCount === 0) throw new BadUserInputError([{ path: "datasetId", message: `dataset "${dataset.name}" has no items: import some first` }]);
      const experimentAndExternal = await prisma.$transaction(async (tx) => {
        const members: Member[] = [];
        const paths = new Map<string, string>();
        for (const [i, id] of (data.evaluatorIds ?? []).entries()) {
          const member = await evaluatorMember(tx, workspaceId, id, `evaluatorIds[${i}]`, issues);
          if (member) members.push(member);
          if (member && !paths.has(member.evaluatorId)) paths.set(member.evaluatorId, `evaluatorIds[${i}]`);
        }
        for (const [i, id] of (data.templateIds ?? []).entries()) {
          const member = await templateMember(tx, workspaceId, id, `templateIds[${i}]`, issues);
          if (member) members.push(member);
          if (member) paths.set(member.evaluatorId, `templateIds[${i}]`);
        }
        if (issues.length) throw new BadUserInputError(issues);
        const external = await addDependencyMembers(tx, workspaceId, members, issues);
        if (issues.length) throw new BadUserInputError(issues);
        await refuseSameNames(tx, members, paths);
        const created = await tx.experiment.create({
          data: {
            workspaceId,
            datasetId: dataset.id,
            name: data.name ?? `${dataset.name} ${new Date().toISOString().slice(0, 19).replace("T", " ")}`,
            itemCount: dataset.itemCount,
            batchSize: data.batchSize ?? DEFAULT_BATCH_SIZE,
            dependencyWaitSeconds: data.dependencyWaitSeconds ?? DEFAULT_DEPENDENCY_WAIT_SECONDS,
            evaluators: { create: members.map((m, position) => ({ ...m, params: asJson(m.params), position })) },
          },
        });
        return { created, external };
      });
      const { created: experiment, external } = experimentAndExternal;
      await enqueue(experiment, batchesOf(experiment));
      // The safety net: when the wait for external scores ends, each batch runs what still waits (flagged).
      if (external && experiment.dependencyWaitSeconds > 0) {
        for (const batch of batchesOf(experiment)) {
          await queues.add("experiment-batch", { experimentId: experiment.id, batch }, { jobId: `${experiment.id}_${batch}_wait`, delay: experiment.dependencyWaitSeconds * 1000 + 1000 });
        }
      }
      logger.info({ experimentId: experiment.id, items: experiment.itemCount, batches: batchesOf(experiment).length }, "experiment queued");
      return experiment;
    },

    /**
     * Cancels a queued or running experiment: batches not started do nothing, a running batch
     * stops before its next evaluator. Finished runs stay. Idempotent; a finished experiment is
     * left as it is.
     */
    async cancelExperiment(principal: Principal, id: string): Promise<Experiment> {
      const experiment = await getExperiment(principal.workspaceId, id);
      const now = new Date();
      await prisma.experiment.updateMany({ where: { id: experiment.id, status: { in: ["queued", "running"] } }, data: { status: "cancelled", cancelledAt: now, finishedAt: now } });
      return prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
    },

    /**
     * Runs again what did not succeed: moves the failed runs (any outcome but ok and skipped) with
     * their scores to RunHistory (reason `retried`), and queues the batches that hold a failed or unfinished item. Items
     * already finished are skipped by the batches. Also resumes a cancelled experiment.
     * @returns the experiment (running again, or completed when nothing was left to do).
     */
    async retryExperiment(principal: Principal, id: string): Promise<{ experiment: Experiment; batches: number }> {
      const found = await getExperiment(principal.workspaceId, id);
      const { experiment, batches } = await prisma.$transaction(async (tx) => {
        // The failed runs stay readable as history (the one replace policy, evaluation/history.ts).
        const failed = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM "Run" WHERE "experimentId" = $1::uuid AND ${FAILED_OUTCOMES_SQL}`, found.id);
        await moveRunsToHistory(tx, failed.map((r) => r.id), { reason: "retried" });
        const evaluators = await tx.experimentEvaluator.count({ where: { experimentId: found.id } });
        const rows = await tx.$queryRaw<{ batch: number }[]>`
          SELECT DISTINCT (i.position / ${found.batchSize}::int) AS batch
          FROM "DatasetItem" i
          LEFT JOIN "Run" r ON r."datasetItemId" = i.id AND r."experimentId" = ${found.id}::uuid
            AND r."evaluatorId" IN (SELECT "evaluatorId" FROM "ExperimentEvaluator" WHERE "experimentId" = ${found.id}::uuid)
          WHERE i."datasetId" = ${found.datasetId}::uuid AND i.position < ${found.itemCount}::int
          GROUP BY i.id, i.position
          HAVING count(r.id) < ${evaluators}::int
          ORDER BY 1`;
        const batches = rows.map((r) => Number(r.batch));
        const experiment = await tx.experiment.update({
          where: { id: found.id },
          data: batches.length
            ? { status: "running", retries: { increment: 1 }, finishedAt: null, cancelledAt: null }
            : { status: "completed", finishedAt: found.finishedAt ?? new Date(), cancelledAt: null },
        });
        return { experiment, batches };
      });
      if (batches.length) await enqueue(experiment, batches);
      logger.info({ experimentId: experiment.id, batches: batches.length }, "experiment retried");
      return { experiment, batches: batches.length };
    },

    /** The progress of an experiment (counted from its runs). */
    progress,

    /** Per evaluator and score name of an experiment of the workspace: count, mean, pass rate. @throws NotFoundError. */
    async summary(principal: Principal, experimentId: string): Promise<ScoreSummary[]> {
      return scoreSummaries(prisma, (await getExperiment(principal.workspaceId, experimentId)).id);
    },

    /** Per evaluator and dependency: runs that read it with no scores for their item. @throws NotFoundError. */
    async missingDependencies(principal: Principal, experimentId: string): Promise<MissingDependencyCount[]> {
      return missingDependencyCounts(prisma, (await getExperiment(principal.workspaceId, experimentId)).id);
    },

    /** Runs per evaluator and outcome (ok and skipped included). @throws NotFoundError. */
    runsByOutcome,

    /**
     * A page of the (item, evaluator) pairs of an experiment that wait for posted scores of an
     * external evaluator, with the reason and the deadline, in item then evaluator order.
     */
    async itemWaits(experiment: WaitingExperiment, page: { offset: number; limit: number }): Promise<ExperimentItemWait[]> {
      return experimentItemWaits(prisma, experiment, page);
    },

    /** Failed runs per evaluator and outcome: every outcome but ok and skipped. @throws NotFoundError. */
    async failures(principal: Principal, experimentId: string): Promise<OutcomeCount[]> {
      return (await runsByOutcome(principal, experimentId)).filter((c) => c.outcome !== "ok" && c.outcome !== "skipped");
    },

    /**
     * A page of an experiment's items in dataset order, narrowed by `filter` (parsed with
     * experimentItemFilterSchema: a score's name, value range, pass state or category, a run
     * outcome, of one evaluator when given). @throws BadUserInputError, NotFoundError.
     */
    async items(principal: Principal, experimentId: string, filter: unknown, page: { offset: number; limit: number }): Promise<ExperimentItem[]> {
      const { data, issues } = parseIssues(experimentItemFilterSchema, filter ?? {}, "filter");
      if (!data) throw new BadUserInputError(issues);
      const experiment = await getExperiment(principal.workspaceId, experimentId);
      // An evaluator id that is no UUID matches nothing (as an evaluator of another workspace).
      const noPassRule = data.passed != null ? await offScaleScores(prisma, experiment.id) : [];
      const where = itemWhere(experiment, { ...data, evaluatorId: data.evaluatorId ? uuidOrNil(data.evaluatorId) : null, noPassRule });
      const items = await prisma.datasetItem.findMany({ where, orderBy: { position: "asc" }, skip: page.offset, take: page.limit });
      return items.map((item) => ({ item, experimentId: experiment.id }));
    },

    /**
     * Compares two experiments of the workspace on the same dataset (evaluators matched by name):
     * per-score deltas and at most `limit` changed items (see compare.ts).
     * @throws BadUserInputError (limit outside 0–1000, different datasets), NotFoundError.
     */
    async compare(principal: Principal, input: unknown): Promise<Comparison> {
      const { data, issues } = parseIssues(compareExperimentsInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const base = await getExperiment(principal.workspaceId, data.baseId);
      const candidate = await getExperiment(principal.workspaceId, data.candidateId);
      return compareExperiments(prisma, base, candidate, data.limit);
    },

    /**
     * The experiment's status and progress each time they change (polled every 500 ms, so it
     * holds across processes), ending after `completed` or `cancelled`.
     * @throws NotFoundError before the first event.
     */
    async watchProgress(principal: Principal, experimentId: string): Promise<AsyncGenerator<ExperimentProgressEvent>> {
      const experiment = await getExperiment(principal.workspaceId, experimentId);
      return watchSnapshots(async () => {
        const row = await prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
        return { experimentId: row.id, status: row.status, progress: await progress(row) };
      });
    },
  };
}

/** The experiments service. */
export type ExperimentService = ReturnType<typeof createExperimentService>;
