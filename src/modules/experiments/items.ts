import type { Prisma } from "../../generated/prisma/client.js";
import type { Experiment } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { passedWhere } from "../dependencies/passed.js";

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
  /**
   * The score passes (true) or fails (false) by combine.passed at 0.5. Like the summary's
   * passRate, a score of a `noPassRule` group (NUMERIC off the 0–1 scale) neither passes nor fails.
   */
  passed?: boolean | null;
  /** (evaluator, score name) pairs of the experiment whose NUMERIC values leave 0–1 (see {@link offScaleScores}). */
  noPassRule?: { evaluatorId: string; name: string }[];
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
  if (filter.passed != null && filter.noPassRule?.length) scoreParts.push({ NOT: { OR: filter.noPassRule.map((g) => ({ evaluatorId: g.evaluatorId, name: g.name })) } });
  if (filter.category != null) scoreParts.push({ dataType: "CATEGORICAL", value: { equals: filter.category } });
  const where: Prisma.DatasetItemWhereInput = { datasetId: experiment.datasetId, position: { lt: experiment.itemCount } };
  if (filter.scoreName != null || scoreParts.length) {
    where.scores = { some: { experimentId: experiment.id, ...evaluator, ...(filter.scoreName != null ? { name: filter.scoreName } : {}), AND: scoreParts } };
  }
  if (filter.outcome != null) where.runs = { some: { experimentId: experiment.id, ...evaluator, outcome: filter.outcome } };
  return where;
}

/**
 * The (evaluator, score name) pairs of an experiment with a NUMERIC value outside [0, 1]: the
 * groups whose summary has no `passed` / `passRate` (src/modules/runs/score-summary.ts), which
 * the items filter `passed` matches neither way.
 */
export async function offScaleScores(prisma: PrismaClient, experimentId: string): Promise<{ evaluatorId: string; name: string }[]> {
  return prisma.$queryRaw<{ evaluatorId: string; name: string }[]>`
    SELECT "evaluatorId", name FROM "Score"
    WHERE "experimentId" = ${experimentId}::uuid AND "dataType" = 'NUMERIC'
    GROUP BY "evaluatorId", name
    HAVING min("numericValue") < 0 OR max("numericValue") > 1`;
}
