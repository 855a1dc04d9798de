import type { Prisma } from "../../generated/prisma/client.js";
import type { Experiment } from "../../generated/prisma/client.js";
import { passedWhere } from "../runs/passed.js";

/** How to filter an experiment's items by their scores and run outcomes (all given parts must hold). */
export interface ItemFilter {
  /** Only scores / runs of this evaluator. */
  evaluatorId?: string | null;
  /** Items with a score of this name (required by minValue, maxValue, passed, category). */
  scoreName?: string | null;
  /** The score's number (a boolean as 0/1) is at least this. */
  minValue?: number | null;
  /** The score's number (a boolean as 0/1) is at most this. */
  maxValue?: number | null;
  /** The score passes (true) or fails (false) by combine.passed at 0.5. */
  passed?: boolean | null;
  /** The score is this category (CATEGORICAL scores). */
  category?: string | null;
  /** Items with a run of this outcome (ok, user_error, timeout, …). */
  outcome?: string | null;
}

/**
 * The DatasetItem filter of an experiment's items: the items it covers, narrowed by a score
 * (name, value range, pass state, category) and/or a run outcome. Pure.
 */
export function itemWhere(experiment: Pick<Experiment, "id" | "datasetId" | "itemCount">, filter: ItemFilter = {}): Prisma.DatasetItemWhereInput {
  const evaluator = filter.evaluatorId ? { evaluatorId: filter.evaluatorId } : {};
  const scoreParts: Prisma.ScoreWhereInput[] = [];
  if (filter.minValue != null) scoreParts.push({ numericValue: { gte: filter.minValue } });
  if (filter.maxValue != null) scoreParts.push({ numericValue: { lte: filter.maxValue } });
  if (filter.passed != null) scoreParts.push(passedWhere(filter.passed));
  if (filter.category != null) scoreParts.push({ dataType: "CATEGORICAL", value: { equals: filter.category } });
  const where: Prisma.DatasetItemWhereInput = { datasetId: experiment.datasetId, position: { lt: experiment.itemCount } };
  if (filter.scoreName != null || scoreParts.length) {
    where.scores = { some: { experimentId: experiment.id, ...evaluator, ...(filter.scoreName != null ? { name: filter.scoreName } : {}), AND: scoreParts } };
  }
  if (filter.outcome != null) where.runs = { some: { experimentId: experiment.id, ...evaluator, outcome: filter.outcome } };
  return where;
}
