import { BadUserInputError, NotFoundError } from "../../lib/errors.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Principal } from "../../lib/principal.js";
import { isUuid } from "../../lib/uuid.js";
import type { Queues } from "../../queues/queues.js";
import { submitScores, type SubmitScoresInput, type SubmitScoresResult } from "./submit.js";
import { submitExperimentScores, type SubmitExperimentScoresInput } from "./submit-experiment.js";
import type { ReleaseDeps } from "../runs/release.js";

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
 * Posted scores of external evaluators: written as their runs through the evaluation core
 * (evaluation/write.ts), then the dependents waiting for them are released (runs/release.ts).
 */
export function createPostedScoreService(deps: ReleaseDeps) {
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
  };
}

/** The posted-scores service. */
export type PostedScoreService = ReturnType<typeof createPostedScoreService>;
