-- CreateTable
CREATE TABLE "Monitor" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "evaluatorId" UUID NOT NULL,
    "scoreName" TEXT,
    "metric" TEXT NOT NULL,
    "percentile" DOUBLE PRECISION,
    "windowSeconds" INTEGER NOT NULL,
    "cadenceSeconds" INTEGER NOT NULL,
    "condition" TEXT NOT NULL,
    "warningLevel" DOUBLE PRECISION,
    "alertLevel" DOUBLE PRECISION,
    "baseline" TEXT,
    "minEffect" DOUBLE PRECISION,
    "maxPValue" DOUBLE PRECISION NOT NULL DEFAULT 0.05,
    "dropSeverity" TEXT NOT NULL DEFAULT 'ALERT',
    "minSampleSize" INTEGER NOT NULL DEFAULT 30,
    "minCount" INTEGER NOT NULL DEFAULT 1,
    "renotifySeconds" INTEGER,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "state" TEXT NOT NULL DEFAULT 'OK',
    "stateSince" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "notifiedState" TEXT NOT NULL DEFAULT 'OK',
    "lastNotifiedAt" TIMESTAMP(3),
    "muted" BOOLEAN NOT NULL DEFAULT false,
    "mutedUntil" TIMESTAMP(3),
    "muteReason" TEXT,
    "lastWindowEnd" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Monitor_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MonitorEvaluation" (
    "id" UUID NOT NULL,
    "monitorId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "windowEnd" TIMESTAMP(3) NOT NULL,
    "state" TEXT NOT NULL,
    "value" DOUBLE PRECISION,
    "n" INTEGER NOT NULL,
    "baselineValue" DOUBLE PRECISION,
    "baselineN" INTEGER,
    "effect" DOUBLE PRECISION,
    "pValue" DOUBLE PRECISION,
    "statistic" DOUBLE PRECISION,
    "reason" TEXT NOT NULL,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "evaluatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "MonitorEvaluation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MonitorTransition" (
    "id" UUID NOT NULL,
    "monitorId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "fromState" TEXT NOT NULL,
    "toState" TEXT NOT NULL,
    "cause" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "windowEnd" TIMESTAMP(3),
    "evaluationId" UUID,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "MonitorTransition_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertDestination" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "urlSealed" TEXT NOT NULL,
    "urlHint" TEXT NOT NULL,
    "secretSealed" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AlertDestination_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MonitorDestination" (
    "monitorId" UUID NOT NULL,
    "destinationId" UUID NOT NULL,

    CONSTRAINT "MonitorDestination_pkey" PRIMARY KEY ("monitorId","destinationId")
);

-- CreateTable
CREATE TABLE "AlertDelivery" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "monitorId" UUID NOT NULL,
    "destinationId" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "log" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "AlertDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Monitor_workspaceId_createdAt_idx" ON "Monitor"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Monitor_evaluatorId_idx" ON "Monitor"("evaluatorId");

-- CreateIndex
CREATE INDEX "Monitor_enabled_lastWindowEnd_idx" ON "Monitor"("enabled", "lastWindowEnd");

-- CreateIndex
CREATE UNIQUE INDEX "Monitor_workspaceId_name_key" ON "Monitor"("workspaceId", "name");

-- CreateIndex
CREATE INDEX "MonitorEvaluation_workspaceId_idx" ON "MonitorEvaluation"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "MonitorEvaluation_monitorId_windowEnd_key" ON "MonitorEvaluation"("monitorId", "windowEnd");

-- CreateIndex
CREATE INDEX "MonitorTransition_monitorId_at_idx" ON "MonitorTransition"("monitorId", "at");

-- CreateIndex
CREATE INDEX "MonitorTransition_workspaceId_idx" ON "MonitorTransition"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "AlertDestination_workspaceId_name_key" ON "AlertDestination"("workspaceId", "name");

-- CreateIndex
CREATE INDEX "MonitorDestination_destinationId_idx" ON "MonitorDestination"("destinationId");

-- CreateIndex
CREATE INDEX "AlertDelivery_monitorId_createdAt_idx" ON "AlertDelivery"("monitorId", "createdAt");

-- CreateIndex
CREATE INDEX "AlertDelivery_status_nextAttemptAt_idx" ON "AlertDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "AlertDelivery_workspaceId_createdAt_idx" ON "AlertDelivery"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "AlertDelivery_destinationId_idx" ON "AlertDelivery"("destinationId");

-- CreateIndex
CREATE INDEX "Run_evaluatorId_createdAt_outcome_spanId_templateVersionId_idx" ON "Run"("evaluatorId", "createdAt", "outcome", "spanId", "templateVersionId");

-- CreateIndex
CREATE INDEX "Score_evaluatorId_name_createdAt_numericValue_dataType_high_idx" ON "Score"("evaluatorId", "name", "createdAt", "numericValue", "dataType", "higherIsBetter", "spanId");

-- AddForeignKey
ALTER TABLE "Monitor" ADD CONSTRAINT "Monitor_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Monitor" ADD CONSTRAINT "Monitor_evaluatorId_fkey" FOREIGN KEY ("evaluatorId") REFERENCES "Evaluator"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MonitorEvaluation" ADD CONSTRAINT "MonitorEvaluation_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "Monitor"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MonitorTransition" ADD CONSTRAINT "MonitorTransition_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "Monitor"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertDestination" ADD CONSTRAINT "AlertDestination_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MonitorDestination" ADD CONSTRAINT "MonitorDestination_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "Monitor"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MonitorDestination" ADD CONSTRAINT "MonitorDestination_destinationId_fkey" FOREIGN KEY ("destinationId") REFERENCES "AlertDestination"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertDelivery" ADD CONSTRAINT "AlertDelivery_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "Monitor"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertDelivery" ADD CONSTRAINT "AlertDelivery_destinationId_fkey" FOREIGN KEY ("destinationId") REFERENCES "AlertDestination"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The monitors' closed lists (src/lib/closed-lists.ts) as CHECK constraints, hand-written: Prisma does not model them.
ALTER TABLE "Monitor" ADD CONSTRAINT "Monitor_metric_check" CHECK ("metric" IN ('pass_rate', 'mean', 'percentile', 'count', 'not_ok_share', 'backlog_age'));
ALTER TABLE "Monitor" ADD CONSTRAINT "Monitor_condition_check" CHECK ("condition" IN ('threshold', 'drop'));
ALTER TABLE "Monitor" ADD CONSTRAINT "Monitor_baseline_check" CHECK ("baseline" IN ('previous_window', 'week_before', 'previous_version'));
ALTER TABLE "Monitor" ADD CONSTRAINT "Monitor_dropSeverity_check" CHECK ("dropSeverity" IN ('WARNING', 'ALERT'));
ALTER TABLE "Monitor" ADD CONSTRAINT "Monitor_state_check" CHECK ("state" IN ('OK', 'WARNING', 'ALERT', 'NO_DATA'));
ALTER TABLE "Monitor" ADD CONSTRAINT "Monitor_notifiedState_check" CHECK ("notifiedState" IN ('OK', 'WARNING', 'ALERT', 'NO_DATA'));
ALTER TABLE "MonitorEvaluation" ADD CONSTRAINT "MonitorEvaluation_state_check" CHECK ("state" IN ('OK', 'WARNING', 'ALERT', 'NO_DATA'));
ALTER TABLE "MonitorTransition" ADD CONSTRAINT "MonitorTransition_fromState_check" CHECK ("fromState" IN ('OK', 'WARNING', 'ALERT', 'NO_DATA'));
ALTER TABLE "MonitorTransition" ADD CONSTRAINT "MonitorTransition_toState_check" CHECK ("toState" IN ('OK', 'WARNING', 'ALERT', 'NO_DATA'));
ALTER TABLE "MonitorTransition" ADD CONSTRAINT "MonitorTransition_cause_check" CHECK ("cause" IN ('evaluation', 'resolved_by_hand'));
ALTER TABLE "AlertDestination" ADD CONSTRAINT "AlertDestination_kind_check" CHECK ("kind" IN ('webhook', 'slack'));
ALTER TABLE "AlertDelivery" ADD CONSTRAINT "AlertDelivery_event_check" CHECK ("event" IN ('firing', 'resolved', 'renotify', 'test'));
ALTER TABLE "AlertDelivery" ADD CONSTRAINT "AlertDelivery_status_check" CHECK ("status" IN ('pending', 'delivered', 'failed'));
