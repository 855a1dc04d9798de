-- AlterTable
ALTER TABLE "Evaluator" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'code',
ALTER COLUMN "templateId" DROP NOT NULL;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "inputRunIds" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "EvaluatorDependency" (
    "evaluatorId" UUID NOT NULL,
    "dependsOnId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "gateScore" TEXT,
    "gateAt" DOUBLE PRECISION,

    CONSTRAINT "EvaluatorDependency_pkey" PRIMARY KEY ("evaluatorId","dependsOnId")
);

-- CreateIndex
CREATE INDEX "EvaluatorDependency_dependsOnId_idx" ON "EvaluatorDependency"("dependsOnId");

-- AddForeignKey
ALTER TABLE "EvaluatorDependency" ADD CONSTRAINT "EvaluatorDependency_evaluatorId_fkey" FOREIGN KEY ("evaluatorId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluatorDependency" ADD CONSTRAINT "EvaluatorDependency_dependsOnId_fkey" FOREIGN KEY ("dependsOnId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;
