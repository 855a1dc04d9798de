-- One policy for replacing a run on every path: the replaced run moves to RunHistory with the
-- reason (src/lib/closed-lists.ts RUN_REPLACE_REASONS, the CHECK below). Rows kept before this
-- migration get theirs from what replaced them: a backfill, else (for an external evaluator) scores
-- posted again, else (a dependent) inputs that changed.
ALTER TABLE "RunHistory" ADD COLUMN "reason" TEXT;
UPDATE "RunHistory" h SET "reason" = CASE
  WHEN h."supersededByBackfillId" IS NOT NULL THEN 'backfill_rerun'
  WHEN EXISTS (SELECT 1 FROM "Evaluator" e WHERE e.id = h."evaluatorId" AND e.kind = 'external') THEN 'scores_reposted'
  ELSE 'inputs_changed'
END;
ALTER TABLE "RunHistory" ALTER COLUMN "reason" SET NOT NULL;
ALTER TABLE "RunHistory" ADD CONSTRAINT "RunHistory_reason_check" CHECK ("reason" IN ('backfill_rerun', 'inputs_changed', 'scores_reposted', 'retried'));
