import type { ItemResult } from "../../execution/index.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { insertRuns, type InsertedRun, type ItemTarget } from "../evaluation/write.js";

/** What one run of an evaluator on an experiment item records. */
export interface ExperimentRunRecord {
  workspaceId: string;
  experimentId: string;
  datasetItemId: string;
  evaluatorId: string;
  templateVersionId: string;
  /** ctx.params as the run saw them. */
  params: Record<string, unknown>;
  /** Shared-library versions used: name → version. */
  libraryVersions: Record<string, number>;
  /** The sandbox's result; null for a run skipped by a gate (see `skipReason`). */
  result: ItemResult | null;
  /** Why the run was skipped (a dependency's gate did not pass); the outcome is then `skipped`. */
  skipReason?: string;
  /** Dependencies that had no scores for the item when the run read them (ctx.score fell back to its default). */
  missingDependencies?: string[];
  /** Dependency evaluator id → the run id read (when the evaluator has dependencies). */
  inputRunIds?: Record<string, string>;
  /** Attempts of the batch job so far (1 on the first). */
  attempts: number;
  startedAt: Date;
  finishedAt: Date;
}

/**
 * Writes runs and their scores in ONE statement through the runs module's writer
 * (modules/evaluation/write.ts). Exactly once per (experiment, item, evaluator): the unique index
 * decides, so a run that another attempt or worker already recorded is left as it is.
 * @returns the runs this call inserted (with their ids and the columns written), in input order.
 */
export async function recordExperimentRuns(prisma: PrismaClient, records: readonly ExperimentRunRecord[]): Promise<InsertedRun<ItemTarget>[]> {
  return insertRuns(
    prisma,
    records.map(({ experimentId, datasetItemId, ...r }) => ({ ...r, target: { experimentId, datasetItemId } })),
  );
}
