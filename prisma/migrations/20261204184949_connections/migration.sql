-- CreateTable
CREATE TABLE "Connection" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "baseUrl" TEXT,
    "defaultModel" TEXT NOT NULL,
    "maxConcurrentRequests" INTEGER NOT NULL DEFAULT 4,
    "keyCiphertext" TEXT NOT NULL,
    "keyIv" TEXT NOT NULL,
    "keyAuthTag" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "keyHint" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Connection_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Connection_workspaceId_name_key" ON "Connection"("workspaceId", "name");

-- AddForeignKey
ALTER TABLE "Connection" ADD CONSTRAINT "Connection_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The closed list of providers (src/lib/closed-lists.ts CONNECTION_PROVIDERS) and the bound of maxConcurrentRequests (src/modules/connections/schemas.ts)
ALTER TABLE "Connection" ADD CONSTRAINT "Connection_provider_check" CHECK ("provider" IN ('openai', 'anthropic'));
ALTER TABLE "Connection" ADD CONSTRAINT "Connection_maxConcurrentRequests_check" CHECK ("maxConcurrentRequests" BETWEEN 1 AND 64);
