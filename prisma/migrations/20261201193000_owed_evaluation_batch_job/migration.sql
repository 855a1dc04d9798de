-- The batch job that queued an owed evaluation (live evaluations are queued one job per ingest
-- batch and evaluator): the reconciler checks that job before queueing the pair again.
ALTER TABLE "OwedEvaluation" ADD COLUMN "jobId" TEXT;
