-- AlterTable
ALTER TABLE "Evaluator" ADD COLUMN     "maxInvocationsPerHour" INTEGER;

-- CreateTable
CREATE TABLE "OwedEvaluation" (
    "spanId" UUID NOT NULL,
    "evaluatorId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requeues" INTEGER NOT NULL DEFAULT 0,
    "requeuedAt" TIMESTAMP(3),

    CONSTRAINT "OwedEvaluation_pkey" PRIMARY KEY ("spanId","evaluatorId")
);

-- CreateIndex
CREATE INDEX "OwedEvaluation_createdAt_idx" ON "OwedEvaluation"("createdAt");

-- AddForeignKey
ALTER TABLE "OwedEvaluation" ADD CONSTRAINT "OwedEvaluation_spanId_fkey" FOREIGN KEY ("spanId") REFERENCES "Span"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OwedEvaluation" ADD CONSTRAINT "OwedEvaluation_evaluatorId_fkey" FOREIGN KEY ("evaluatorId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;
