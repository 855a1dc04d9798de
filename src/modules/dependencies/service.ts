import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import type { Principal } from "../../lib/principal.js";
import { dependencyGraph, spanRunsInOrder, type DependencyGraph, type LayeredRun } from "./reading.js";
import { createAfterEvaluation } from "./release.js";
import { submitScores, type SubmitScoresInput, type SubmitScoresResult } from "./submit.js";
import { submitExperimentScores, type SubmitExperimentScoresInput } from "./submit-experiment.js";

/**
 * Evaluator dependencies at run time: posted scores of external evaluators, the release hook of
 * the evaluation processor, and reading (graphs, runs in order). Saving dependencies is part of
 * the evaluators service (one transaction with the evaluator).
 */
export function createDependencyService(deps: { prisma: PrismaClient; queues: Queues }) {
  const { prisma } = deps;
  return {
    /** Posts scores of an external evaluator on a span (see submit.ts). */
    submitScores: (principal: Principal, input: SubmitScoresInput): Promise<SubmitScoresResult> => submitScores(deps, principal, input),
    /** Posts an external evaluator's scores for a dataset item of an experiment (its dependents there wait for them). */
    submitExperimentScores: (principal: Principal, input: SubmitExperimentScoresInput): Promise<SubmitScoresResult> => submitExperimentScores(deps, principal, input),
    /** The processor's `afterEvaluation` hook: releases dependents, re-runs stale ones. */
    afterEvaluation: createAfterEvaluation(deps),
    /** The dependency graph around an evaluator of the workspace. */
    graph: (workspaceId: string, evaluatorId: string): Promise<DependencyGraph> => dependencyGraph(prisma, workspaceId, evaluatorId),
    /** The runs on a span by dependency layer, then start time. */
    runsInOrder: (workspaceId: string, spanId: string): Promise<LayeredRun[]> => spanRunsInOrder(prisma, workspaceId, spanId),
  };
}

/** The dependencies service. */
export type DependencyService = ReturnType<typeof createDependencyService>;
