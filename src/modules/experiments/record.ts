import { randomUUID } from "node:crypto";
import { Prisma } from "../../generated/prisma/client.js";
import type { ItemResult } from "../../execution/index.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { runColumns, type RunColumns } from "../runs/record.js";

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
  result: ItemResult;
  /** Attempts of the batch job so far (1 on the first). */
  attempts: number;
  startedAt: Date;
  finishedAt: Date;
}

/** Postgres refuses U+0000 in text and jsonb: replace it (user code can print anything). */
function noNul(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}

/** A JSON value without U+0000 in any string (cheap when there is none). */
function jsonNoNul<T>(value: T): T {
  const text = JSON.stringify(value);
  return text.includes("\\u0000") ? (JSON.parse(text.replaceAll("\\u0000", "\\ufffd")) as T) : value;
}

/** The Run row of one record, with its id chosen here (so its scores can point at it). */
function runRow(id: string, r: ExperimentRunRecord, columns: RunColumns): Prisma.RunCreateManyInput {
  return {
    id,
    workspaceId: r.workspaceId,
    evaluatorId: r.evaluatorId,
    templateVersionId: r.templateVersionId,
    experimentId: r.experimentId,
    datasetItemId: r.datasetItemId,
    libraryVersions: r.libraryVersions,
    params: jsonNoNul(r.params) as Prisma.InputJsonValue,
    outcome: columns.outcome,
    stdout: noNul(columns.stdout),
    stderr: noNul(columns.stderr),
    errorType: columns.errorType === null ? null : noNul(columns.errorType),
    errorMessage: columns.errorMessage === null ? null : noNul(columns.errorMessage),
    errorTraceback: columns.errorTraceback === null ? null : noNul(columns.errorTraceback),
    durationMs: columns.durationMs,
    attempts: r.attempts,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

/** The Score rows of one run (the primary score first). */
function scoreRows(runId: string, r: ExperimentRunRecord, columns: RunColumns): Prisma.ScoreCreateManyInput[] {
  return columns.scores.map((score) => ({
    runId,
    workspaceId: r.workspaceId,
    evaluatorId: r.evaluatorId,
    experimentId: r.experimentId,
    datasetItemId: r.datasetItemId,
    position: score.position,
    name: noNul(score.name),
    dataType: score.dataType,
    value: score.value === null ? Prisma.DbNull : typeof score.value === "string" ? noNul(score.value) : score.value,
    numericValue: score.numericValue,
    higherIsBetter: score.higherIsBetter,
    comment: score.comment === null ? null : noNul(score.comment),
    metadata: score.metadata === null ? Prisma.DbNull : (jsonNoNul(score.metadata) as Prisma.InputJsonValue),
  }));
}

/**
 * Writes runs and their scores in ONE transaction. Exactly once per (experiment, item,
 * evaluator): the unique index decides, so a run that another attempt already recorded is left
 * as it is and this attempt's copy (and its scores) is dropped.
 * @returns how many runs this call inserted.
 */
export async function recordExperimentRuns(prisma: PrismaClient, records: readonly ExperimentRunRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const withIds = records.map((record) => ({ id: randomUUID(), record, columns: runColumns(record.result) }));
  return prisma.$transaction(async (tx) => {
    await tx.run.createMany({ data: withIds.map(({ id, record, columns }) => runRow(id, record, columns)), skipDuplicates: true });
    const inserted = new Set(
      (await tx.run.findMany({ where: { id: { in: withIds.map((w) => w.id) } }, select: { id: true } })).map((r) => r.id),
    );
    const scores = withIds.filter((w) => inserted.has(w.id)).flatMap(({ id, record, columns }) => scoreRows(id, record, columns));
    if (scores.length) await tx.score.createMany({ data: scores });
    return inserted.size;
  });
}
