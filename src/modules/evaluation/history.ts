import type { Prisma } from "../../generated/prisma/client.js";
import type { RunReplaceReason } from "../../lib/closed-lists.js";

/** Copies runs, with their scores as JSON, into RunHistory ($2: the backfill that replaces them, or NULL; $3: the reason). */
const MOVE_TO_HISTORY = `
INSERT INTO "RunHistory" (id, "workspaceId", "evaluatorId", "templateVersionId", "spanId", "experimentId", "datasetItemId", "libraryVersions", params,
                          outcome, "skipReason", stdout, stderr, "errorType", "errorMessage", "errorTraceback", "durationMs", attempts, "inputRunIds",
                          "missingDependencies", "outputTruncated", "backfillId", "traceId", "sessionId", completion, "groupSpanCount", "documentCapped", usage,
                          "startedAt", "finishedAt", "createdAt", scores, "supersededByBackfillId", "supersededAt", reason)
SELECT r.id, r."workspaceId", r."evaluatorId", r."templateVersionId", r."spanId", r."experimentId", r."datasetItemId", r."libraryVersions", r.params,
       r.outcome, r."skipReason", r.stdout, r.stderr, r."errorType", r."errorMessage", r."errorTraceback", r."durationMs", r.attempts, r."inputRunIds",
       r."missingDependencies", r."outputTruncated", r."backfillId", r."traceId", r."sessionId", r.completion, r."groupSpanCount", r."documentCapped", r.usage,
       r."startedAt", r."finishedAt", r."createdAt",
       coalesce((SELECT jsonb_agg(jsonb_build_object('position', s.position, 'name', s.name, 'dataType', s."dataType", 'value', s.value, 'numericValue', s."numericValue",
                                                     'higherIsBetter', s."higherIsBetter", 'comment', s.comment, 'metadata', s.metadata) ORDER BY s.position)
                 FROM "Score" s WHERE s."runId" = r.id), '[]'::jsonb),
       $2::uuid, now(), $3::text
FROM "Run" r WHERE r.id = ANY($1::uuid[])`;

/**
 * The one policy for replacing a run, on every path (live dependents, posted scores, backfills,
 * experiments): the run moves into RunHistory (its scores as JSON) with the reason, and is deleted
 * from Run, so the (target, evaluator) pair can take a newer run and the replaced one stays
 * readable as history (Run.history, RunHistory.reason). Call it inside the transaction that writes
 * the replacement.
 * @param runIds - the Run ids to move (UUIDs); none: nothing is done.
 * @param replacedBy - why (`RUN_REPLACE_REASONS`), and the backfill whose run replaces them (a `backfill_rerun` only).
 */
export async function moveRunsToHistory(tx: Prisma.TransactionClient, runIds: string[], replacedBy: { reason: RunReplaceReason; backfillId?: string }): Promise<void> {
  if (runIds.length === 0) return;
  await tx.$executeRawUnsafe(MOVE_TO_HISTORY, runIds, replacedBy.backfillId ?? null, replacedBy.reason);
  await tx.$executeRaw`DELETE FROM "Run" WHERE id = ANY(${runIds}::uuid[])`;
}
