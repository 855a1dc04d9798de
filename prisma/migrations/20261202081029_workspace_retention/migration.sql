-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "retentionDays" INTEGER,
ADD COLUMN     "retentionForever" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "RunHistory_workspaceId_supersededAt_idx" ON "RunHistory"("workspaceId", "supersededAt");

-- A retention is a whole number of days (at least 1), or forever, or the default (NULL, false).
ALTER TABLE "Workspace" ADD CONSTRAINT "Workspace_retention_check"
  CHECK (("retentionDays" IS NULL OR "retentionDays" >= 1) AND NOT ("retentionForever" AND "retentionDays" IS NOT NULL));
