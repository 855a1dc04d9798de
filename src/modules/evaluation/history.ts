import type { Prisma } from "../../generated/prisma/client.js";

/** Copies runs, with their scores as JSON, into RunHistory ($2: the backfill that replaces them, or NULL). */
const MOVE_TO_HISTORY = `
INSERT INTO "RunHistory" (id, "workspaceId", "evaluatorId", "templateVersionId", "spanId", "experimentId", "datasetItemId", "libraryVersions", params,
                          outcome, "skipReason", stdout, stderr, "errorType", "errorMessage", "errorTraceback", "durationMs", attempts, "inputRunIds",
                          "missingDependencies", "outputTruncated", "backfillId", "startedAt", "finishedAt", "createdAt", scores, "supersededByBackfillId", "supersededAt")
SELECT r.id, r."workspaceId", r."evaluatorId", r."templateVersionId", r."spanId", r."experimentId", r."datasetItemId", r."libraryVersions", r.params,
       r.outcome, r."skipReason", r.stdout, r.stderr, r."errorType", r."errorMessage", r."errorTraceback", r."durationMs", r.attempts, r."inputRunIds",
       r."missingDependencies", r."outputTruncated", r."backfillId", r."startedAt", r."finishedAt", r."createdAt",
       coalesce((SELECT jsonb_agg(jsonb_build_object('position', s.position, 'name', s.name, 'dataType', s."dataType", 'value', s.value, 'numericValue', s."numericValue",
                                                     'higherIsBetter', s."higherIsBetter", 'comment', s.comment, 'metadata', s.metadata) ORDER BY s.position)
                 FROM "Score" s WHERE s."runId" = r.id), '[]'::jsonb),
       $2::uuid, now()
FROM "Run" r WHERE r.id = ANY($1::uuid[])`;

/**
 * Moves runs into RunHistory (their scores as JSON) and deletes them from Run, so the (span,
 * evaluator) pair can take a newer run and the replaced one stays readable as history.
 * @param runIds the Run ids to move (UUIDs)
 * @param supersededByBackfillId the backfill whose run replaces them; null for a live re-run (a
 *   dependent whose inputs changed)
 */
export async function moveRunsToHistory(tx: Prisma.TransactionClient, runIds: string[], supersededByBackfillId: string | null): Promise<void> {
  if (runIds.length === 0) return;
  await tx.$executeRawUnsafe(MOVE_TO_HISTORY, runIds, supersededByBackfillId);
  await tx.$executeRaw`DELETE FROM "Run" WHERE id = ANY(${runIds}::uuid[])`;
}
