-- CreateIndex
CREATE INDEX "RunHistory_experimentId_datasetItemId_evaluatorId_idx" ON "RunHistory"("experimentId", "datasetItemId", "evaluatorId");
