-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "backfillId" UUID;

-- CreateTable
CREATE TABLE "Backfill" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "error" TEXT,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "windowEnd" TIMESTAMP(3) NOT NULL,
    "spanFilter" JSONB NOT NULL DEFAULT '{}',
    "sampleRate" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "maxSpans" INTEGER NOT NULL,
    "rerun" BOOLEAN NOT NULL DEFAULT false,
    "includeDependencies" BOOLEAN NOT NULL DEFAULT false,
    "spanCount" INTEGER NOT NULL,
    "batchSize" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "cancelledAt" TIMESTAMP(3),

    CONSTRAINT "Backfill_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BackfillEvaluator" (
    "id" UUID NOT NULL,
    "backfillId" UUID NOT NULL,
    "evaluatorId" UUID NOT NULL,
    "templateVersionId" UUID NOT NULL,
    "params" JSONB NOT NULL DEFAULT '{}',
    "source" TEXT NOT NULL DEFAULT 'evaluator',
    "position" INTEGER NOT NULL,

    CONSTRAINT "BackfillEvaluator_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BackfillSpan" (
    "backfillId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "spanId" UUID NOT NULL,

    CONSTRAINT "BackfillSpan_pkey" PRIMARY KEY ("backfillId","position")
);

-- CreateTable
CREATE TABLE "BackfillBatch" (
    "backfillId" UUID NOT NULL,
    "batch" INTEGER NOT NULL,
    "spans" INTEGER NOT NULL,
    "runsRecorded" INTEGER NOT NULL,
    "pairsSkipped" INTEGER NOT NULL,
    "finishedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BackfillBatch_pkey" PRIMARY KEY ("backfillId","batch")
);

-- CreateTable
CREATE TABLE "RunHistory" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "evaluatorId" UUID NOT NULL,
    "templateVersionId" UUID,
    "spanId" UUID,
    "experimentId" UUID,
    "datasetItemId" UUID,
    "libraryVersions" JSONB NOT NULL DEFAULT '{}',
    "params" JSONB NOT NULL DEFAULT '{}',
    "outcome" TEXT NOT NULL,
    "skipReason" TEXT,
    "stdout" TEXT NOT NULL DEFAULT '',
    "stderr" TEXT NOT NULL DEFAULT '',
    "errorType" TEXT,
    "errorMessage" TEXT,
    "errorTraceback" TEXT,
    "durationMs" DOUBLE PRECISION,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "inputRunIds" JSONB NOT NULL DEFAULT '{}',
    "missingDependencies" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "outputTruncated" BOOLEAN NOT NULL DEFAULT false,
    "backfillId" UUID,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "scores" JSONB NOT NULL DEFAULT '[]',
    "supersededByBackfillId" UUID NOT NULL,
    "supersededAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RunHistory_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Backfill_workspaceId_createdAt_idx" ON "Backfill"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Backfill_workspaceId_status_idx" ON "Backfill"("workspaceId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "BackfillEvaluator_backfillId_evaluatorId_key" ON "BackfillEvaluator"("backfillId", "evaluatorId");

-- CreateIndex
CREATE INDEX "BackfillSpan_spanId_idx" ON "BackfillSpan"("spanId");

-- CreateIndex
CREATE INDEX "RunHistory_spanId_evaluatorId_supersededAt_idx" ON "RunHistory"("spanId", "evaluatorId", "supersededAt");

-- CreateIndex
CREATE INDEX "RunHistory_supersededByBackfillId_idx" ON "RunHistory"("supersededByBackfillId");

-- CreateIndex
CREATE INDEX "RunHistory_backfillId_idx" ON "RunHistory"("backfillId");

-- CreateIndex
CREATE INDEX "Run_backfillId_outcome_idx" ON "Run"("backfillId", "outcome");

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_backfillId_fkey" FOREIGN KEY ("backfillId") REFERENCES "Backfill"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Backfill" ADD CONSTRAINT "Backfill_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BackfillEvaluator" ADD CONSTRAINT "BackfillEvaluator_backfillId_fkey" FOREIGN KEY ("backfillId") REFERENCES "Backfill"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BackfillEvaluator" ADD CONSTRAINT "BackfillEvaluator_evaluatorId_fkey" FOREIGN KEY ("evaluatorId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BackfillEvaluator" ADD CONSTRAINT "BackfillEvaluator_templateVersionId_fkey" FOREIGN KEY ("templateVersionId") REFERENCES "TemplateVersion"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BackfillSpan" ADD CONSTRAINT "BackfillSpan_backfillId_fkey" FOREIGN KEY ("backfillId") REFERENCES "Backfill"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BackfillSpan" ADD CONSTRAINT "BackfillSpan_spanId_fkey" FOREIGN KEY ("spanId") REFERENCES "Span"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BackfillBatch" ADD CONSTRAINT "BackfillBatch_backfillId_fkey" FOREIGN KEY ("backfillId") REFERENCES "Backfill"("id") ON DELETE CASCADE ON UPDATE CASCADE;
