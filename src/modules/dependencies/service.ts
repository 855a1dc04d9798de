import { BadUserInputError, NotFoundError } from "../../lib/errors.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import type { Principal } from "../../lib/principal.js";
import { isUuid } from "../../lib/uuid.js";
import { dependencyGraph, spanRunsInOrder, type DependencyGraph, type LayeredRun } from "./reading.js";
import { createAfterEvaluation } from "./release.js";
import { loadDependencyEdges, type DependencyEdge } from "./store.js";
import { submitScores, type SubmitScoresInput, type SubmitScoresResult } from "./submit.js";
import { submitExperimentScores, type SubmitExperimentScoresInput } from "./submit-experiment.js";

export type { Gate } from "./graph.js";
export type { DependencyEdge } from "./store.js";
export type { DependencyGraph, LayeredRun } from "./reading.js";
export type { DependencyWait, WaitedDependency } from "./waiting.js";
export type { SubmitScoresResult } from "./submit.js";

/** Where posted scores go: a live span, or a dataset item of an experiment (both ids). */
export interface PostScoresInput {
  spanId?: string | null;
  experimentId?: string | null;
  datasetItemId?: string | null;
  /** The external evaluator: its id or its name. */
  evaluator: string;
  scores: unknown;
}

/**
 * Evaluator dependencies at run time: posted scores of external evaluators, the release hook of
 * the evaluation processor, and reading (edges, graphs, runs in order). Saving dependencies is
 * part of the evaluators service (one transaction with the evaluator).
 */
export function createDependencyService(deps: { prisma: PrismaClient; queues: Queues }) {
  const { prisma } = deps;

  /** An evaluator id of the caller's workspace (archived ones too). @throws NotFoundError. */
  async function ownEvaluator(principal: Principal, evaluatorId: string): Promise<string> {
    const found = isUuid(evaluatorId) ? await prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId: principal.workspaceId }, select: { id: true } }) : null;
    if (!found) throw new NotFoundError("evaluator", evaluatorId);
    return found.id;
  }

  return {
    /** Posts scores of an external evaluator on a span (see submit.ts). */
    submitScores: (principal: Principal, input: SubmitScoresInput): Promise<SubmitScoresResult> => submitScores(deps, principal, input),
    /** Posts an external evaluator's scores for a dataset item of an experiment (its dependents there wait for them). */
    submitExperimentScores: (principal: Principal, input: SubmitExperimentScoresInput): Promise<SubmitScoresResult> => submitExperimentScores(deps, principal, input),

    /**
     * Posts an external evaluator's scores on a live span (`spanId`) or on a dataset item of an
     * experiment (`experimentId` and `datasetItemId`): exactly one of the two targets.
     * @throws BadUserInputError at `spanId` for both, neither or half an item; NotFoundError.
     */
    postScores(principal: Principal, input: PostScoresInput): Promise<SubmitScoresResult> {
      const onItem = input.experimentId != null || input.datasetItemId != null;
      if ((input.spanId != null) === onItem || (onItem && (input.experimentId == null || input.datasetItemId == null))) {
        throw new BadUserInputError([{ path: "spanId", message: "give either spanId (a live span) or experimentId and datasetItemId (a dataset item of an experiment)" }]);
      }
      if (onItem) return submitExperimentScores(deps, principal, { experimentId: input.experimentId!, datasetItemId: input.datasetItemId!, evaluator: input.evaluator, scores: input.scores });
      if (!isUuid(input.spanId!)) throw new NotFoundError("span", input.spanId!);
      return submitScores(deps, principal, { spanId: input.spanId!, evaluator: input.evaluator, scores: input.scores });
    },

    /** The processor's `afterEvaluation` hook: releases dependents, re-runs stale ones. */
    afterEvaluation: createAfterEvaluation(deps),

    /**
     * What an evaluator of the workspace runs after: its declared dependencies in the order given,
     * with their gates, then those inferred from its code. @throws NotFoundError.
     */
    async dependenciesOf(principal: Principal, evaluatorId: string): Promise<DependencyEdge[]> {
      return loadDependencyEdges(prisma, [await ownEvaluator(principal, evaluatorId)]);
    },

    /** The ids of the evaluators that run after an evaluator of the workspace, oldest first. @throws NotFoundError. */
    async dependentsOf(principal: Principal, evaluatorId: string): Promise<string[]> {
      const id = await ownEvaluator(principal, evaluatorId);
      const rows = await prisma.evaluator.findMany({ where: { workspaceId: principal.workspaceId, dependencies: { some: { dependsOnId: id } } }, orderBy: { createdAt: "asc" }, select: { id: true } });
      return rows.map((r) => r.id);
    },

    /** The dependency graph around an evaluator of the workspace. */
    graph: (workspaceId: string, evaluatorId: string): Promise<DependencyGraph> => dependencyGraph(prisma, workspaceId, evaluatorId),
    /** The runs on a span by dependency layer, then start time. */
    runsInOrder: (workspaceId: string, spanId: string): Promise<LayeredRun[]> => spanRunsInOrder(prisma, workspaceId, spanId),
  };
}

/** The dependencies service. */
export type DependencyService = ReturnType<typeof createDependencyService>;
