-- CreateIndex
CREATE INDEX "OwedEvaluation_workspaceId_createdAt_idx" ON "OwedEvaluation"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "OwedEvaluation_evaluatorId_createdAt_idx" ON "OwedEvaluation"("evaluatorId", "createdAt");
