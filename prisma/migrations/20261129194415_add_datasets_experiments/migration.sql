/*
  Warnings:

  - A unique constraint covering the columns `[experimentId,datasetItemId,evaluatorId]` on the table `Run` will be added. If there are existing duplicate values, this will fail.

*/
-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "datasetItemId" UUID,
ADD COLUMN     "experimentId" UUID;

-- AlterTable
ALTER TABLE "Score" ADD COLUMN     "datasetItemId" UUID,
ADD COLUMN     "experimentId" UUID;

-- CreateTable
CREATE TABLE "Dataset" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "itemCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Dataset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DatasetItem" (
    "id" UUID NOT NULL,
    "datasetId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "externalId" TEXT,
    "input" JSONB,
    "output" JSONB,
    "expectedOutput" JSONB,
    "context" JSONB,
    "toolCalls" JSONB,
    "expectedToolCalls" JSONB,
    "traceSpans" JSONB,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DatasetItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Experiment" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "datasetId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "itemCount" INTEGER NOT NULL,
    "batchSize" INTEGER NOT NULL,
    "retries" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "cancelledAt" TIMESTAMP(3),

    CONSTRAINT "Experiment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExperimentEvaluator" (
    "id" UUID NOT NULL,
    "experimentId" UUID NOT NULL,
    "evaluatorId" UUID NOT NULL,
    "templateVersionId" UUID NOT NULL,
    "params" JSONB NOT NULL DEFAULT '{}',
    "source" TEXT NOT NULL DEFAULT 'evaluator',
    "position" INTEGER NOT NULL,

    CONSTRAINT "ExperimentEvaluator_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Dataset_workspaceId_name_key" ON "Dataset"("workspaceId", "name");

-- CreateIndex
CREATE INDEX "DatasetItem_datasetId_externalId_idx" ON "DatasetItem"("datasetId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "DatasetItem_datasetId_position_key" ON "DatasetItem"("datasetId", "position");

-- CreateIndex
CREATE INDEX "Experiment_workspaceId_createdAt_idx" ON "Experiment"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Experiment_datasetId_idx" ON "Experiment"("datasetId");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentEvaluator_experimentId_evaluatorId_key" ON "ExperimentEvaluator"("experimentId", "evaluatorId");

-- CreateIndex
CREATE INDEX "Run_experimentId_outcome_idx" ON "Run"("experimentId", "outcome");

-- CreateIndex
CREATE INDEX "Run_datasetItemId_idx" ON "Run"("datasetItemId");

-- CreateIndex
CREATE UNIQUE INDEX "Run_experimentId_datasetItemId_evaluatorId_key" ON "Run"("experimentId", "datasetItemId", "evaluatorId");

-- CreateIndex
CREATE INDEX "Score_experimentId_name_numericValue_idx" ON "Score"("experimentId", "name", "numericValue");

-- CreateIndex
CREATE INDEX "Score_datasetItemId_idx" ON "Score"("datasetItemId");

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_datasetItemId_fkey" FOREIGN KEY ("datasetItemId") REFERENCES "DatasetItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Score" ADD CONSTRAINT "Score_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Score" ADD CONSTRAINT "Score_datasetItemId_fkey" FOREIGN KEY ("datasetItemId") REFERENCES "DatasetItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Dataset" ADD CONSTRAINT "Dataset_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DatasetItem" ADD CONSTRAINT "DatasetItem_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Experiment" ADD CONSTRAINT "Experiment_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Experiment" ADD CONSTRAINT "Experiment_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentEvaluator" ADD CONSTRAINT "ExperimentEvaluator_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentEvaluator" ADD CONSTRAINT "ExperimentEvaluator_evaluatorId_fkey" FOREIGN KEY ("evaluatorId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentEvaluator" ADD CONSTRAINT "ExperimentEvaluator_templateVersionId_fkey" FOREIGN KEY ("templateVersionId") REFERENCES "TemplateVersion"("id") ON DELETE CASCADE ON UPDATE CASCADE;
