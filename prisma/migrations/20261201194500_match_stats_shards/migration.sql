-- Match counters in shards: every ingest of a workspace added to the same row per evaluator and
-- waited on the row lock of the ingest before it until that one committed. An ingest now adds to
-- one of 16 rows per evaluator (drawn at random), and reads sum them.
ALTER TABLE "EvaluatorMatchStats" ADD COLUMN "shard" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "EvaluatorMatchStats" DROP CONSTRAINT "EvaluatorMatchStats_pkey";
ALTER TABLE "EvaluatorMatchStats" ADD CONSTRAINT "EvaluatorMatchStats_pkey" PRIMARY KEY ("evaluatorId", "shard");
ALTER TABLE "EvaluatorMatchStats" ADD CONSTRAINT "EvaluatorMatchStats_shard_check" CHECK ("shard" >= 0 AND "shard" < 16);
