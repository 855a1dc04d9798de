import { randomUUID } from "node:crypto";
import type { ItemResult } from "../../execution/index.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { jsonWithoutNul, runColumns, SKIPPED_COLUMNS, type RunColumns } from "../runs/record.js";

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
  /** Attempts of the batch job so far (1 on the first). */
  attempts: number;
  startedAt: Date;
  finishedAt: Date;
}

/** The Run row of one record as JSON for `jsonb_to_recordset`, with its id chosen here (`runColumns` already replaced U+0000). */
function runRow(id: string, r: ExperimentRunRecord, columns: RunColumns) {
  return {
    id,
    workspaceId: r.workspaceId,
    evaluatorId: r.evaluatorId,
    templateVersionId: r.templateVersionId,
    experimentId: r.experimentId,
    datasetItemId: r.datasetItemId,
    libraryVersions: r.libraryVersions,
    params: jsonWithoutNul(r.params),
    outcome: columns.outcome,
    skipReason: r.skipReason ?? null,
    missingDependencies: r.missingDependencies ?? [],
    stdout: columns.stdout,
    stderr: columns.stderr,
    errorType: columns.errorType,
    errorMessage: columns.errorMessage,
    errorTraceback: columns.errorTraceback,
    durationMs: columns.durationMs,
    outputTruncated: columns.outputTruncated,
    attempts: r.attempts,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt.toISOString(),
  };
}

/** The Score rows of one run as JSON (the primary score first); a null value is SQL NULL (no value). */
function scoreRows(runId: string, r: ExperimentRunRecord, columns: RunColumns) {
  return columns.scores.map((score) => ({
    runId,
    workspaceId: r.workspaceId,
    evaluatorId: r.evaluatorId,
    experimentId: r.experimentId,
    datasetItemId: r.datasetItemId,
    position: score.position,
    name: score.name,
    dataType: score.dataType,
    value: score.value,
    numericValue: score.numericValue,
    higherIsBetter: score.higherIsBetter,
    comment: score.comment,
    metadata: score.metadata,
  }));
}

/**
 * Inserts the runs, skipping any (experiment, item, evaluator) that already has one, and the
 * scores of the runs actually inserted — one statement, so runs and scores commit together.
 * Rows travel as two jsonb arrays (an ORM multi-row insert is an order of magnitude slower).
 */
const INSERT_RUNS_AND_SCORES = `
WITH inserted AS (
  INSERT INTO "Run" (id, "workspaceId", "evaluatorId", "templateVersionId", "experimentId", "datasetItemId", "libraryVersions", params,
                     outcome, "skipReason", "missingDependencies", stdout, stderr, "errorType", "errorMessage", "errorTraceback", "durationMs", "outputTruncated", attempts, "startedAt", "finishedAt")
  SELECT r.id, r."workspaceId", r."evaluatorId", r."templateVersionId", r."experimentId", r."datasetItemId", r."libraryVersions", r.params,
         r.outcome, r."skipReason", coalesce(r."missingDependencies", ARRAY[]::text[]), r.stdout, r.stderr, r."errorType", r."errorMessage", r."errorTraceback", r."durationMs", coalesce(r."outputTruncated", false), r.attempts, r."startedAt", r."finishedAt"
  FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, "workspaceId" uuid, "evaluatorId" uuid, "templateVersionId" uuid, "experimentId" uuid,
       "datasetItemId" uuid, "libraryVersions" jsonb, params jsonb, outcome text, "skipReason" text, "missingDependencies" text[], stdout text, stderr text, "errorType" text,
       "errorMessage" text, "errorTraceback" text, "durationMs" float8, "outputTruncated" boolean, attempts int, "startedAt" timestamp(3), "finishedAt" timestamp(3))
  ON CONFLICT ("experimentId", "datasetItemId", "evaluatorId") DO NOTHING
  RETURNING id
), scores AS (
  INSERT INTO "Score" (id, "runId", "workspaceId", "evaluatorId", "experimentId", "datasetItemId", position, name, "dataType", value,
                       "numericValue", "higherIsBetter", comment, metadata)
  SELECT gen_random_uuid(), s."runId", s."workspaceId", s."evaluatorId", s."experimentId", s."datasetItemId", s.position, s.name, s."dataType",
         s.value, s."numericValue", s."higherIsBetter", s.comment, s.metadata
  FROM jsonb_to_recordset($2::jsonb) AS s("runId" uuid, "workspaceId" uuid, "evaluatorId" uuid, "experimentId" uuid, "datasetItemId" uuid,
       position int, name text, "dataType" text, value jsonb, "numericValue" float8, "higherIsBetter" boolean, comment text, metadata jsonb)
  WHERE s."runId" IN (SELECT id FROM inserted)
)
SELECT count(*)::int AS inserted FROM inserted`;

/**
 * Writes runs and their scores in ONE statement (so in one transaction). Exactly once per
 * (experiment, item, evaluator): the unique index decides, so a run that another attempt or
 * worker already recorded is left as it is and this attempt's copy (and its scores) is dropped.
 * @returns how many runs this call inserted.
 */
export async function recordExperimentRuns(prisma: PrismaClient, records: readonly ExperimentRunRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const runs: ReturnType<typeof runRow>[] = [];
  const scores: ReturnType<typeof scoreRows> = [];
  for (const record of records) {
    const id = randomUUID();
    const columns = record.result ? runColumns(record.result) : SKIPPED_COLUMNS;
    runs.push(runRow(id, record, columns));
    scores.push(...scoreRows(id, record, columns));
  }
  const [row] = await prisma.$queryRawUnsafe<{ inserted: number }[]>(INSERT_RUNS_AND_SCORES, JSON.stringify(runs), JSON.stringify(scores));
  return row?.inserted ?? 0;
}
