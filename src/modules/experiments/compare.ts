import type { Experiment } from "../../generated/prisma/client.js";
import { BadUserInputError } from "../../lib/errors.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { passedSql } from "../dependencies/passed.js";
import { scoreSummaries, type ScoreSummary } from "./summary.js";

/** Which way an item's score moved from the base to the candidate experiment. */
export type ChangeDirection = "improved" | "regressed" | "changed";

/** One item whose score (or run outcome) differs between the two experiments. */
export interface ItemChange {
  datasetItemId: string;
  position: number;
  externalId: string | null;
  evaluatorName: string;
  /** The score; null for a change of run outcome (e.g. ok → user_error). */
  scoreName: string | null;
  baseValue: unknown;
  candidateValue: unknown;
  basePassed: boolean | null;
  candidatePassed: boolean | null;
  baseOutcome: string | null;
  candidateOutcome: string | null;
  direction: ChangeDirection;
}

/** One score name (per evaluator name) in both experiments, and how it moved. */
export interface ScoreDelta {
  evaluatorName: string;
  name: string;
  base: ScoreSummary | null;
  candidate: ScoreSummary | null;
  /** candidate mean − base mean (null when either has none). */
  meanDelta: number | null;
  /** candidate pass rate − base pass rate (null when either has none). */
  passRateDelta: number | null;
  improved: number;
  regressed: number;
  changed: number;
}

/** The comparison of two experiments on the same dataset. */
export interface Comparison {
  baseId: string;
  candidateId: string;
  scores: ScoreDelta[];
  /** Items with at least one change. */
  changedItems: number;
  /** The changes, ordered by item position then evaluator and score; at most `limit`. */
  changes: ItemChange[];
  /** Every change, counted. */
  changeCount: number;
}

/**
 * The direction of a score change: a pass that became a fail regressed (and the reverse
 * improved); with the same pass state, a number moved in the score's better direction improved;
 * anything else (a category, a value appearing) changed. Pure.
 */
export function directionOf(change: { basePassed: boolean | null; candidatePassed: boolean | null; baseNumber: number | null; candidateNumber: number | null; higherIsBetter: boolean }): ChangeDirection {
  if (change.basePassed !== null && change.candidatePassed !== null && change.basePassed !== change.candidatePassed) {
    return change.candidatePassed ? "improved" : "regressed";
  }
  if (change.baseNumber !== null && change.candidateNumber !== null && change.baseNumber !== change.candidateNumber) {
    return (change.candidateNumber > change.baseNumber) === change.higherIsBetter ? "improved" : "regressed";
  }
  return "changed";
}

/** The key of a score across experiments: evaluator name and score name (evaluator ids may differ). */
const keyOf = (evaluatorName: string, name: string) => JSON.stringify([evaluatorName, name]);

type ScoreChangeRow = {
  datasetItemId: string; position: number; externalId: string | null; evaluatorName: string; scoreName: string; higherIsBetter: boolean;
  baseValue: unknown; candidateValue: unknown; baseNumber: number | null; candidateNumber: number | null; basePassed: boolean | null; candidatePassed: boolean | null;
};
type OutcomeChangeRow = { datasetItemId: string; position: number; externalId: string | null; evaluatorName: string; baseOutcome: string; candidateOutcome: string };

/**
 * Compares two experiments on the same dataset, matching evaluators by name (so a template run
 * with its defaults in each matches itself): per score, both summaries with the mean and pass-rate
 * deltas and how many items improved, regressed or changed; and the items that changed — a score
 * value that differs, or a run outcome that differs.
 * @throws BadUserInputError when the experiments are on different datasets.
 */
export async function compareExperiments(prisma: PrismaClient, base: Experiment, candidate: Experiment, limit = 100): Promise<Comparison> {
  if (base.datasetId !== candidate.datasetId) {
    throw new BadUserInputError([{ path: "candidateId", message: "the experiments run on different datasets: compare experiments of the same dataset" }]);
  }
  const [baseSummary, candidateSummary, scoreRows, outcomeRows] = await Promise.all([
    scoreSummaries(prisma, base.id),
    scoreSummaries(prisma, candidate.id),
    prisma.$queryRawUnsafe<ScoreChangeRow[]>(
      `SELECT b."datasetItemId", i.position, i."externalId", eb.name AS "evaluatorName", b.name AS "scoreName", b."higherIsBetter",
              b.value AS "baseValue", c.value AS "candidateValue", b."numericValue" AS "baseNumber", c."numericValue" AS "candidateNumber",
              (${passedSql("b")}) AS "basePassed", (${passedSql("c")}) AS "candidatePassed"
       FROM "Score" b
       JOIN "Evaluator" eb ON eb.id = b."evaluatorId"
       JOIN "Score" c ON c."experimentId" = $2::uuid AND c."datasetItemId" = b."datasetItemId" AND c.name = b.name
       JOIN "Evaluator" ec ON ec.id = c."evaluatorId" AND ec.name = eb.name
       JOIN "DatasetItem" i ON i.id = b."datasetItemId"
       WHERE b."experimentId" = $1::uuid AND b.value IS DISTINCT FROM c.value
       ORDER BY i.position, eb.name, b.name`,
      base.id,
      candidate.id,
    ),
    prisma.$queryRaw<OutcomeChangeRow[]>`
      SELECT rb."datasetItemId", i.position, i."externalId", eb.name AS "evaluatorName", rb.outcome AS "baseOutcome", rc.outcome AS "candidateOutcome"
      FROM "Run" rb
      JOIN "Evaluator" eb ON eb.id = rb."evaluatorId"
      JOIN "Run" rc ON rc."experimentId" = ${candidate.id}::uuid AND rc."datasetItemId" = rb."datasetItemId"
      JOIN "Evaluator" ec ON ec.id = rc."evaluatorId" AND ec.name = eb.name
      JOIN "DatasetItem" i ON i.id = rb."datasetItemId"
      WHERE rb."experimentId" = ${base.id}::uuid AND rb.outcome <> rc.outcome
      ORDER BY i.position, eb.name`,
  ]);

  const changes: ItemChange[] = [
    ...scoreRows.map((r) => ({
      datasetItemId: r.datasetItemId, position: r.position, externalId: r.externalId, evaluatorName: r.evaluatorName, scoreName: r.scoreName,
      baseValue: r.baseValue, candidateValue: r.candidateValue, basePassed: r.basePassed, candidatePassed: r.candidatePassed,
      baseOutcome: "ok", candidateOutcome: "ok", direction: directionOf(r),
    })),
    ...outcomeRows.map((r) => ({
      datasetItemId: r.datasetItemId, position: r.position, externalId: r.externalId, evaluatorName: r.evaluatorName, scoreName: null,
      baseValue: null, candidateValue: null, basePassed: null, candidatePassed: null, baseOutcome: r.baseOutcome, candidateOutcome: r.candidateOutcome,
      direction: (r.baseOutcome === "ok" ? "regressed" : r.candidateOutcome === "ok" ? "improved" : "changed") as ChangeDirection,
    })),
  ].sort((a, b) => a.position - b.position || a.evaluatorName.localeCompare(b.evaluatorName) || (a.scoreName ?? "").localeCompare(b.scoreName ?? ""));

  const deltas = new Map<string, ScoreDelta>();
  const deltaFor = (evaluatorName: string, name: string) => {
    const key = keyOf(evaluatorName, name);
    let delta = deltas.get(key);
    if (!delta) {
      delta = { evaluatorName, name, base: null, candidate: null, meanDelta: null, passRateDelta: null, improved: 0, regressed: 0, changed: 0 };
      deltas.set(key, delta);
    }
    return delta;
  };
  for (const s of baseSummary) deltaFor(s.evaluatorName, s.name).base = s;
  for (const s of candidateSummary) deltaFor(s.evaluatorName, s.name).candidate = s;
  for (const c of changes) if (c.scoreName !== null) deltaFor(c.evaluatorName, c.scoreName)[c.direction] += 1;
  for (const d of deltas.values()) {
    if (d.base?.mean != null && d.candidate?.mean != null) d.meanDelta = d.candidate.mean - d.base.mean;
    if (d.base?.passRate != null && d.candidate?.passRate != null) d.passRateDelta = d.candidate.passRate - d.base.passRate;
  }
  return {
    baseId: base.id,
    candidateId: candidate.id,
    scores: [...deltas.values()],
    changedItems: new Set(changes.map((c) => c.datasetItemId)).size,
    changes: changes.slice(0, Math.max(0, limit)),
    changeCount: changes.length,
  };
}
