-- CreateTable
CREATE TABLE "SharedLibrary" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "latestVersion" INTEGER NOT NULL DEFAULT 0,
    "deprecatedAt" TIMESTAMP(3),
    "deprecationNote" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SharedLibrary_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SharedLibraryVersion" (
    "id" UUID NOT NULL,
    "libraryId" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "sourceCode" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "imports" TEXT[],
    "authorApiKeyId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SharedLibraryVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Span" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "traceId" TEXT NOT NULL,
    "spanId" TEXT NOT NULL,
    "parentSpanId" TEXT,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "startTime" TIMESTAMP(3) NOT NULL,
    "endTime" TIMESTAMP(3),
    "input" JSONB,
    "output" JSONB,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'unset',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Span_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "evaluatorId" UUID NOT NULL,
    "templateVersionId" UUID,
    "spanId" UUID,
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
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Score" (
    "id" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "evaluatorId" UUID NOT NULL,
    "spanId" UUID,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "dataType" TEXT NOT NULL,
    "value" JSONB,
    "numericValue" DOUBLE PRECISION,
    "higherIsBetter" BOOLEAN NOT NULL DEFAULT true,
    "comment" TEXT,
    "metadata" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Score_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SharedLibrary_workspaceId_name_key" ON "SharedLibrary"("workspaceId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "SharedLibraryVersion_libraryId_version_key" ON "SharedLibraryVersion"("libraryId", "version");

-- CreateIndex
CREATE INDEX "Span_workspaceId_createdAt_idx" ON "Span"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Span_workspaceId_traceId_idx" ON "Span"("workspaceId", "traceId");

-- CreateIndex
CREATE UNIQUE INDEX "Span_workspaceId_traceId_spanId_key" ON "Span"("workspaceId", "traceId", "spanId");

-- CreateIndex
CREATE INDEX "Run_workspaceId_outcome_createdAt_idx" ON "Run"("workspaceId", "outcome", "createdAt");

-- CreateIndex
CREATE INDEX "Run_evaluatorId_createdAt_idx" ON "Run"("evaluatorId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Run_spanId_evaluatorId_key" ON "Run"("spanId", "evaluatorId");

-- CreateIndex
CREATE INDEX "Score_workspaceId_evaluatorId_name_idx" ON "Score"("workspaceId", "evaluatorId", "name");

-- CreateIndex
CREATE INDEX "Score_spanId_idx" ON "Score"("spanId");

-- CreateIndex
CREATE UNIQUE INDEX "Score_runId_name_key" ON "Score"("runId", "name");

-- AddForeignKey
ALTER TABLE "SharedLibrary" ADD CONSTRAINT "SharedLibrary_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SharedLibraryVersion" ADD CONSTRAINT "SharedLibraryVersion_libraryId_fkey" FOREIGN KEY ("libraryId") REFERENCES "SharedLibrary"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SharedLibraryVersion" ADD CONSTRAINT "SharedLibraryVersion_authorApiKeyId_fkey" FOREIGN KEY ("authorApiKeyId") REFERENCES "ApiKey"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Span" ADD CONSTRAINT "Span_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_evaluatorId_fkey" FOREIGN KEY ("evaluatorId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_templateVersionId_fkey" FOREIGN KEY ("templateVersionId") REFERENCES "TemplateVersion"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_spanId_fkey" FOREIGN KEY ("spanId") REFERENCES "Span"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Score" ADD CONSTRAINT "Score_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
