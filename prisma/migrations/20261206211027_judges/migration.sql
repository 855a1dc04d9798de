-- AlterTable
ALTER TABLE "Evaluator" ADD COLUMN     "blockedAt" TIMESTAMP(3),
ADD COLUMN     "blockedReason" TEXT,
ADD COLUMN     "connectionId" UUID,
ADD COLUMN     "maxCostPerHourUsd" DOUBLE PRECISION;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "usage" JSONB;

-- AlterTable
ALTER TABLE "RunHistory" ADD COLUMN     "usage" JSONB;

-- AlterTable
ALTER TABLE "Template" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'code';

-- AlterTable
ALTER TABLE "TemplateVersion" ADD COLUMN     "judge" JSONB;

-- CreateTable
CREATE TABLE "JudgeCacheEntry" (
    "key" TEXT NOT NULL,
    "workspaceId" UUID NOT NULL,
    "answer" JSONB NOT NULL,
    "model" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "JudgeCacheEntry_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "ModelPrice" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "inputUsdPerMillion" DOUBLE PRECISION NOT NULL,
    "outputUsdPerMillion" DOUBLE PRECISION NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ModelPrice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "JudgeCacheEntry_expiresAt_idx" ON "JudgeCacheEntry"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "ModelPrice_workspaceId_model_key" ON "ModelPrice"("workspaceId", "model");

-- AddForeignKey
ALTER TABLE "Evaluator" ADD CONSTRAINT "Evaluator_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "Connection"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JudgeCacheEntry" ADD CONSTRAINT "JudgeCacheEntry_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ModelPrice" ADD CONSTRAINT "ModelPrice_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Closed lists (src/lib/closed-lists.ts): the judge kind, the judge entry point, template kinds
ALTER TABLE "Evaluator" DROP CONSTRAINT "Evaluator_kind_check";
ALTER TABLE "Evaluator" ADD CONSTRAINT "Evaluator_kind_check" CHECK ("kind" IN ('code', 'external', 'judge'));
ALTER TABLE "TemplateVersion" DROP CONSTRAINT "TemplateVersion_entryPointKind_check";
ALTER TABLE "TemplateVersion" ADD CONSTRAINT "TemplateVersion_entryPointKind_check" CHECK ("entryPointKind" IN ('evaluate', 'main', 'opik', 'judge'));
ALTER TABLE "Template" ADD CONSTRAINT "Template_kind_check" CHECK ("kind" IN ('code', 'llm'));
