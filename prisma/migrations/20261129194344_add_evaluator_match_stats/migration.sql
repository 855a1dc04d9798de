-- CreateTable
CREATE TABLE "EvaluatorMatchStats" (
    "evaluatorId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "spansMatched" INTEGER NOT NULL DEFAULT 0,
    "skippedDisabled" INTEGER NOT NULL DEFAULT 0,
    "skippedKind" INTEGER NOT NULL DEFAULT 0,
    "skippedName" INTEGER NOT NULL DEFAULT 0,
    "skippedAttributes" INTEGER NOT NULL DEFAULT 0,
    "skippedSampling" INTEGER NOT NULL DEFAULT 0,
    "lastMatchedAt" TIMESTAMP(3),
    "lastSeenAt" TIMESTAMP(3),

    CONSTRAINT "EvaluatorMatchStats_pkey" PRIMARY KEY ("evaluatorId")
);

-- CreateIndex
CREATE INDEX "EvaluatorMatchStats_workspaceId_idx" ON "EvaluatorMatchStats"("workspaceId");

-- CreateIndex
CREATE INDEX "Span_workspaceId_startTime_idx" ON "Span"("workspaceId", "startTime");

-- AddForeignKey
ALTER TABLE "EvaluatorMatchStats" ADD CONSTRAINT "EvaluatorMatchStats_evaluatorId_fkey" FOREIGN KEY ("evaluatorId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;
