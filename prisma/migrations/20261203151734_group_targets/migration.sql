-- Trace and session evaluators (issue 29): an evaluator's target and group settings, the
-- schedule of each (group, evaluator) in GroupSchedule, and the group columns of Run and
-- RunHistory. The current run per (trace, evaluator) and (session, evaluator) is unique: NULLs
-- are distinct, so span and item runs (both NULL) are not constrained by these indexes.
-- AlterTable
ALTER TABLE "Evaluator" ADD COLUMN     "groupSettings" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "target" TEXT NOT NULL DEFAULT 'span';

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "completion" TEXT,
ADD COLUMN     "documentCapped" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "groupSpanCount" INTEGER,
ADD COLUMN     "sessionId" TEXT,
ADD COLUMN     "traceId" TEXT;

-- AlterTable
ALTER TABLE "RunHistory" ADD COLUMN     "completion" TEXT,
ADD COLUMN     "documentCapped" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "groupSpanCount" INTEGER,
ADD COLUMN     "sessionId" TEXT,
ADD COLUMN     "traceId" TEXT;

-- CreateTable
CREATE TABLE "GroupSchedule" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "evaluatorId" UUID NOT NULL,
    "targetType" TEXT NOT NULL,
    "groupKey" TEXT NOT NULL,
    "traceIds" TEXT[],
    "firstSpanAt" TIMESTAMP(3) NOT NULL,
    "lastSpanAt" TIMESTAMP(3) NOT NULL,
    "spanCount" INTEGER NOT NULL DEFAULT 0,
    "markerAt" TIMESTAMP(3),
    "dueAt" TIMESTAMP(3),
    "generation" INTEGER NOT NULL DEFAULT 1,
    "queuedGeneration" INTEGER,
    "queuedAt" TIMESTAMP(3),
    "requeues" INTEGER NOT NULL DEFAULT 0,
    "ranGeneration" INTEGER,
    "ranAt" TIMESTAMP(3),
    "staleSince" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GroupSchedule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "GroupSchedule_dueAt_idx" ON "GroupSchedule"("dueAt");

-- CreateIndex
CREATE INDEX "GroupSchedule_workspaceId_targetType_groupKey_idx" ON "GroupSchedule"("workspaceId", "targetType", "groupKey");

-- CreateIndex
CREATE INDEX "GroupSchedule_traceIds_idx" ON "GroupSchedule" USING GIN ("traceIds");

-- CreateIndex
CREATE UNIQUE INDEX "GroupSchedule_evaluatorId_targetType_groupKey_key" ON "GroupSchedule"("evaluatorId", "targetType", "groupKey");

-- CreateIndex
CREATE UNIQUE INDEX "Run_evaluatorId_traceId_key" ON "Run"("evaluatorId", "traceId");

-- CreateIndex
CREATE UNIQUE INDEX "Run_evaluatorId_sessionId_key" ON "Run"("evaluatorId", "sessionId");

-- AddForeignKey
ALTER TABLE "GroupSchedule" ADD CONSTRAINT "GroupSchedule_evaluatorId_fkey" FOREIGN KEY ("evaluatorId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "RunHistory_evaluatorId_traceId_idx" ON "RunHistory"("evaluatorId", "traceId");

-- CreateIndex
CREATE INDEX "RunHistory_evaluatorId_sessionId_idx" ON "RunHistory"("evaluatorId", "sessionId");

-- The closed lists of src/lib/closed-lists.ts: TARGET_TYPES, GROUP_TARGET_TYPES, GROUP_COMPLETIONS, RUN_REPLACE_REASONS
ALTER TABLE "Evaluator" ADD CONSTRAINT "Evaluator_target_check" CHECK ("target" IN ('span', 'trace', 'session'));

ALTER TABLE "GroupSchedule" ADD CONSTRAINT "GroupSchedule_targetType_check" CHECK ("targetType" IN ('trace', 'session'));

ALTER TABLE "Run" ADD CONSTRAINT "Run_completion_check" CHECK ("completion" IN ('end_marker', 'quiet_period', 'max_wait'));

ALTER TABLE "RunHistory" ADD CONSTRAINT "RunHistory_completion_check" CHECK ("completion" IN ('end_marker', 'quiet_period', 'max_wait'));

ALTER TABLE "OwedEvaluation" DROP CONSTRAINT "OwedEvaluation_targetType_check";

ALTER TABLE "OwedEvaluation" ADD CONSTRAINT "OwedEvaluation_targetType_check" CHECK ("targetType" IN ('span', 'trace', 'session'));

ALTER TABLE "RunHistory" DROP CONSTRAINT "RunHistory_reason_check";

ALTER TABLE "RunHistory" ADD CONSTRAINT "RunHistory_reason_check" CHECK ("reason" IN ('backfill_rerun', 'inputs_changed', 'scores_reposted', 'retried', 'group_changed'));
