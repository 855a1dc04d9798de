import type { Config } from "./config.js";
import { createExecutor, type Executor } from "./execution/index.js";
import { createLogger, type Logger } from "./lib/logger.js";
import { createPrisma, type PrismaClient } from "./lib/prisma.js";
import { createRedis, queueKeyPrefix, type Redis } from "./lib/redis.js";
import { createBackfillBatchProcessor, type BackfillBatchProcessor } from "./modules/backfills/batch.js";
import { createBackfillResumer, type BackfillResumer } from "./modules/backfills/resume.js";
import { createBackfillService, type BackfillService } from "./modules/backfills/service.js";
import { createDatasetService, type DatasetService } from "./modules/datasets/service.js";
import { createDependencyService, type DependencyService } from "./modules/dependencies/service.js";
import { createPostedScoreService, type PostedScoreService } from "./modules/posted-scores/service.js";
import { createAfterEvaluation } from "./modules/runs/release.js";
import { dependencyEnqueuer } from "./modules/runs/flows.js";
import { createEvaluatorService } from "./modules/evaluators/service.js";
import { countBlockedEvaluators } from "./modules/evaluators/blocking.js";
import { createExperimentBatchProcessor, type ExperimentBatchProcessor } from "./modules/experiments/batch-processor.js";
import { createExperimentService, type ExperimentService } from "./modules/experiments/service.js";
import { createMetrics, type Metrics } from "./modules/metrics/registry.js";
import { createScoreExporter, type ScoreExporter } from "./modules/otlp/score-export.js";
import { spanBatchQueuer, type EvaluationEnqueuer } from "./modules/runs/enqueue.js";
import { createLiveEvaluations, type LiveEvaluations } from "./modules/runs/evaluate.js";
import { createRunPreparer } from "./modules/evaluation/prepare.js";
import { createEvaluationCore } from "./modules/evaluation/evaluate-batch.js";
import { createSandboxExecutor } from "./modules/evaluation/executors.js";
import { kindTraits } from "./modules/evaluators/kinds.js";
import { createJudgeExecutor } from "./modules/evaluation/judge-executor.js";
import { createKeyedSemaphore } from "./lib/keyed-semaphore.js";
import { createRunProcessor, type RecordedRun, type RunProcessor } from "./modules/runs/processor.js";
import { spanLiveTarget } from "./modules/spans/live-target.js";
import { createGroupProcessor, type GroupProcessor } from "./modules/runs/group-processor.js";
import { createGroupScheduler, type GroupScheduler } from "./modules/runs/group-schedule.js";
import { createRunService, type RunService } from "./modules/runs/service.js";
import { createGroupEvaluationService, type GroupEvaluationService } from "./modules/groups/service.js";
import { createSpanBatchProcessor, type SpanBatchProcessor } from "./modules/runs/span-batch.js";
import { createSandboxService, type SandboxService } from "./modules/sandbox/service.js";
import { createSpanService, type SpanService } from "./modules/spans/service.js";
import { createTryCodeService, type TryCodeService } from "./modules/try-code/service.js";
import { rateLimiter } from "./lib/rate-limits.js";
import { budgetedInspector } from "./lib/source-inspection.js";
import { inspectSource } from "./modules/templates/inspect-source.js";
import { inspectLibrary } from "./modules/shared-libraries/inspect-library.js";
import { redisConcurrencyGate } from "./modules/try-code/concurrency.js";
import { createSharedLibraryService } from "./modules/shared-libraries/service.js";
import { createTemplateService } from "./modules/templates/service.js";
import { createWorkspaceService } from "./modules/workspaces/service.js";
import { createConnectionService, type ConnectionService } from "./modules/connections/service.js";
import { createPriceService, type PriceService } from "./modules/judges/price-service.js";
import { costOf } from "./modules/judges/prices.js";
import { purgeExpired } from "./modules/judges/cache.js";
import { createQueues, type Queues } from "./queues/queues.js";
import { createReconciler, type Reconciler } from "./modules/reconcile/service.js";
import { createMonitorService, type MonitorService } from "./modules/monitors/service.js";
import { systemClock, type Clock } from "./lib/clock.js";
import { createRetentionService, type RetentionService } from "./modules/retention/service.js";
import { retentionSettings } from "./modules/retention/policy.js";

// The resolvers' ctx.services are these Services (src/graphql/context.ts declares them empty: it
// stands below the modules).
declare module "./graphql/context.js" {
  interface GraphQLServices extends Services {}
}

/** The services of every feature, built once and shared by GraphQL, jobs, CLI and MCP. */
export interface Services {
  workspaces: ReturnType<typeof createWorkspaceService>;
  templates: ReturnType<typeof createTemplateService>;
  evaluators: ReturnType<typeof createEvaluatorService>;
  /**
   * Evaluator dependencies as clients see them: reading edges and graphs (dependencies/) and
   * posting external scores (posted-scores/), one service of the API.
   */
  dependencies: DependencyService & PostedScoreService;
  sharedLibraries: ReturnType<typeof createSharedLibraryService>;
  /** Span ingest, matching and the sample document of a span. */
  spans: SpanService;
  /** Reading runs: per-evaluator statistics. */
  runs: RunService;
  /** Trace and session evaluations as read: schedules, states, current runs (src/modules/groups/service.ts). */
  groupEvaluations: GroupEvaluationService;
  /** Execution keys (template version + shared libraries) for live runs, try_code and experiments. */
  /** The `evaluate-target` job processor. */
  runProcessor: RunProcessor;
  /** The `evaluate-target` processor of trace and session generations (modules/groups). */
  groupProcessor: GroupProcessor;
  /** Queues the trace and session groups that came due (run by the worker). */
  groupScheduler: GroupScheduler;
  /** The processor of batch jobs: one ingest batch of an evaluator outside every dependency (runs/span-batch.ts). */
  spanBatch: SpanBatchProcessor;
  /** Queues evaluations of stored spans on the live path (backfills): owed rows, jobs, barriers. */
  liveEvaluations: LiveEvaluations;
  /** Draft test runs. */
  tryCode: TryCodeService;
  /** What evaluator code can use inside the sandbox (Python version, packages, limits). */
  sandbox: SandboxService;
  /** Datasets and their JSON Lines import. */
  datasets: DatasetService;
  /** Experiments: creation, cancellation, retry, progress. */
  experiments: ExperimentService;
  /** The `experiment-batch` job processor. */
  experimentBatch: ExperimentBatchProcessor;
  /** Backfills: evaluators run again over stored spans (creation, estimate, cancel, progress, summary). */
  backfills: BackfillService;
  /** The `backfill-batch` job processor. */
  backfillBatch: BackfillBatchProcessor;
  /** Queues again the batches of backfills whose jobs Redis lost (run with the reconciler by the worker). */
  backfillResumer: BackfillResumer;
  /** Re-queues owed evaluations and experiment batches that Redis lost (run periodically by the worker). */
  reconciler: Reconciler;
  /** Monitors of scores (thresholds, drops), their destinations and deliveries, schedulers and reconciler. */
  monitors: MonitorService;
  /** Per-workspace retention (setting, workspace limits) and its batched sweep (run by the worker). */
  retention: RetentionService;
  /** Connections to LLM providers: their sealed keys, testConnection, re-encryption (docs/connections.md). */
  connections: ConnectionService;
  /** The price table of judge calls: built-in list prices and the workspace's own (modules/judges/price-service.ts; docs/connections.md § Prices). */
  modelPrices: PriceService;
}

/** Everything a process needs: connections, queues, services; `close` releases them. */
export interface App {
  config: Config;
  logger: Logger;
  prisma: PrismaClient;
  /** Fail-fast connection for producers and readiness checks (an ioredis Cluster when REDIS_CLUSTER_NODES is set). */
  redis: Redis;
  /** BullMQ's key prefix: QUEUE_PREFIX, hash-tagged `{QUEUE_PREFIX}` on a Redis Cluster (lib/redis.ts queueKeyPrefix). */
  queuePrefix: string;
  queues: Queues;
  services: Services;
  /** Prometheus metrics of this process (modules/metrics). */
  metrics: Metrics;
  /** Exports live runs' scores as OpenTelemetry evaluation events (when SCORE_EXPORT_OTLP_ENDPOINT is set). */
  scoreExporter?: ScoreExporter;
  /** The sandbox executor (warm runner pool) shared by live runs, try_code and experiments; created on first use. */
  readonly execution: Executor;
  close(): Promise<void>;
}

/** The span service with ingest counted in the metrics (ingestSpans and OTLP both go through it). */
function countIngest(spans: SpanService, metrics: Metrics): SpanService {
  return {
    ...spans,
    async ingestSpans(principal, input) {
      const result = await spans.ingestSpans(principal, input);
      metrics.spansIngested(result.spans.length, result.rejected.length);
      return result;
    },
  };
}

/** Live evaluations owed and not yet run over every workspace, for the metrics. */
async function owedBacklog(prisma: PrismaClient): Promise<{ queued: number; oldestAgeSeconds: number }> {
  const [row] = await prisma.$queryRaw<{ queued: number; oldest: Date | null }[]>`SELECT count(*)::int AS queued, min("createdAt") AS oldest FROM "OwedEvaluation"`;
  return { queued: row?.queued ?? 0, oldestAgeSeconds: row?.oldest ? Math.max(0, (Date.now() - row.oldest.getTime()) / 1000) : 0 };
}

/** The composition root: builds Prisma, Redis, queues and services from the configuration. */
export function createApp(
  config: Config,
  overrides: { logger?: Logger; execution?: Executor; enqueueEvaluations?: EvaluationEnqueuer; clock?: Clock } = {},
): App {
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL);
  const prisma = createPrisma(config.DATABASE_URL, (err) => logger.warn({ err: err.message }, "postgres connection error (the pool reconnects)"));
  const redis = createRedis(config, "producer");
  const queuePrefix = queueKeyPrefix(config);
  redis.on("error", (err: Error) => logger.warn({ err: err.message }, "redis connection error (ioredis reconnects)"));
  const queues = createQueues(redis, queuePrefix, logger);
  let executor: Executor | undefined = overrides.execution;
  const clock = overrides.clock ?? systemClock;
  let monitors: MonitorService | undefined;
  const metrics = createMetrics({ redis, queuePrefix, pool: () => executor?.stats?.(), owed: () => owedBacklog(prisma), monitorStates: () => monitors!.stateCounts(), blockedEvaluators: () => countBlockedEvaluators(prisma) });
  const execution = (): Executor => (executor ??= createExecutor({ logger, observer: metrics.runnerObserver }));
  const scoreExporter = config.SCORE_EXPORT_OTLP_ENDPOINT ? createScoreExporter({ endpoint: config.SCORE_EXPORT_OTLP_ENDPOINT, prisma, logger }) : undefined;
  const evaluators = createEvaluatorService({ prisma, logger });
  // Every source parsed for a workspace's request takes a point of its inspection budget (the worker's run preparation takes none).
  const inspections = rateLimiter(redis, "inspection", config.RATE_LIMIT_INSPECTIONS_PER_MINUTE, config.QUEUE_PREFIX);
  const budgetedSource = budgetedInspector(inspectSource, inspections);
  const templates = createTemplateService({ prisma, logger, inspectSource: budgetedSource });
  const sharedLibraries = createSharedLibraryService({ prisma, logger, inspectLibrary: budgetedInspector(inspectLibrary, inspections) });
  const runPreparer = createRunPreparer({ sharedLibraries });
  // The one way to the sandbox for every driver (live, experiments, backfills, tryCode).
  const connections = createConnectionService({ prisma, logger, keyRing: config.CONNECTION_KEYS, probe: { timeoutMs: config.CONNECTION_TEST_TIMEOUT_MS, allowPrivate: config.CONNECTION_ALLOW_PRIVATE_DESTINATIONS } });
  const modelPrices = createPriceService({ prisma, logger });
  const judge = createJudgeExecutor({
    prisma, logger, semaphore: createKeyedSemaphore(),
    callTargetOf: connections.callTargetOf,
    pricingOf: async (workspaceId) => {
      const overrides = await modelPrices.overridesOf(workspaceId);
      return (model, usage) => costOf(model, usage, overrides);
    },
    onTerminal: (evaluatorId, reason) => evaluators.blockEvaluator(evaluatorId, reason),
    onCall: (result, seconds) => metrics.judgeCall(result, seconds),
    // No SDK retries: a 429 defers the job and other faults retry with the queue's backoff.
    callOptions: { maxRetries: 0, timeoutMs: config.JUDGE_CALL_TIMEOUT_MS, allowPrivate: config.CONNECTION_ALLOW_PRIVATE_DESTINATIONS },
  });
  const core = createEvaluationCore({ executors: { code: createSandboxExecutor({ execution, preparer: runPreparer }), judge }, logger });
  const enqueue = overrides.enqueueEvaluations ?? dependencyEnqueuer({ prisma, queues });
  // An overridden enqueuer (tests) sees every pair; else evaluators outside every dependency are queued a job per ingest batch.
  const queueBatches = overrides.enqueueEvaluations ? undefined : spanBatchQueuer(queues);
  const groupEvaluations = createGroupEvaluationService({ prisma, clock });
  const spans = countIngest(
    createSpanService({ prisma, logger, enqueue, ...(queueBatches ? { queueBatches } : {}), maxQueuedEvaluations: config.MAX_QUEUED_EVALUATIONS_PER_WORKSPACE, clock, describeGroup: groupEvaluations.groupEvaluationOf }),
    metrics,
  );
  const dependencies = { ...createDependencyService({ prisma }), ...createPostedScoreService({ prisma, queues, clock }) };
  // The processors' hook after evaluations: releases dependents, re-runs stale ones (runs/release.ts).
  const afterEvaluation = createAfterEvaluation({ prisma, queues, clock });
  // After a span's run committed (live or backfill): count it, and export its scores (in the background) when configured.
  const onRecorded = (run: RecordedRun) => {
    metrics.runRecorded(run, run.evaluatorKind, kindTraits(run.evaluatorKind).sandboxed);
    scoreExporter?.runRecorded(run);
  };
  const runProcessor = createRunProcessor({ prisma, logger, core, targets: { span: spanLiveTarget(prisma) }, afterEvaluation, onRecorded, onBatch: (size) => metrics.liveBatchStarted(size) });
  const services: Services = {
    workspaces: createWorkspaceService({ prisma, queues, logger }),
    templates,
    evaluators,
    dependencies,
    sharedLibraries,
    spans,
    runs: createRunService({ prisma }),
    groupEvaluations,
    runProcessor,
    groupProcessor: createGroupProcessor({ prisma, logger, core, clock, onRecorded }),
    groupScheduler: createGroupScheduler({ prisma, queues, logger, clock, options: { requeueAfterMs: config.GROUP_REQUEUE_AFTER_MS } }),
    spanBatch: createSpanBatchProcessor({ prisma, queues, processEvaluation: runProcessor }),
    liveEvaluations: createLiveEvaluations({ prisma, queues }),
    tryCode: createTryCodeService({
      core,
      templates,
      spans,
      prisma,
      inspectSource: budgetedSource,
      concurrency: redisConcurrencyGate(redis, config.QUEUE_PREFIX, config.TRY_CODE_CONCURRENCY_PER_WORKSPACE, logger),
      concurrencyLimit: config.TRY_CODE_CONCURRENCY_PER_WORKSPACE,
      waitMs: config.TRY_CODE_WAIT_MS,
    }),
    sandbox: createSandboxService(),
    datasets: createDatasetService({ prisma, logger }),
    experiments: createExperimentService({ prisma, queues, logger }),
    experimentBatch: createExperimentBatchProcessor({ prisma, core, logger }),
    backfills: createBackfillService({ prisma, queues, logger }),
    backfillBatch: createBackfillBatchProcessor({ prisma, core, logger, afterEvaluation, onRecorded }),
    backfillResumer: createBackfillResumer({ prisma, queues, logger, graceMs: config.RECONCILE_GRACE_MS }),
    reconciler: createReconciler({ prisma, queues, enqueue, logger, options: { graceMs: config.RECONCILE_GRACE_MS } }),
    monitors: (monitors = createMonitorService({
      prisma,
      queues,
      logger,
      clock,
      ...(config.ALERT_SECRETS_KEY ? { secretsKey: config.ALERT_SECRETS_KEY } : {}),
      delivery: { maxAttempts: config.ALERT_DELIVERY_ATTEMPTS, retryBaseMs: config.ALERT_RETRY_BASE_MS, timeoutMs: config.ALERT_DELIVERY_TIMEOUT_MS, allowPrivate: config.ALERT_ALLOW_PRIVATE_DESTINATIONS },
      graceMs: config.RECONCILE_GRACE_MS,
      observer: { evaluated: (state) => metrics.monitorEvaluated(state), delivered: (result) => metrics.alertDeliveryAttempted(result) },
    })),
    retention: createRetentionService({
      purgeExpiredCache: (now) => purgeExpired(prisma, now),
      prisma,
      logger,
      clock,
      settings: retentionSettings(config),
      batchSize: config.RETENTION_BATCH_SIZE,
      rateLimits: {
        ingestPerMinute: config.RATE_LIMIT_INGEST_PER_MINUTE || null,
        tryCodePerMinute: config.RATE_LIMIT_TRY_CODE_PER_MINUTE || null,
        mutationsPerMinute: config.RATE_LIMIT_MUTATIONS_PER_MINUTE || null,
        readsPerMinute: config.RATE_LIMIT_READS_PER_MINUTE || null,
      },
      maxQueuedEvaluations: config.MAX_QUEUED_EVALUATIONS_PER_WORKSPACE || null,
    }),
    connections,
    modelPrices,
  };
  return {
    config,
    logger,
    prisma,
    redis,
    queuePrefix,
    queues,
    services,
    metrics,
    ...(scoreExporter ? { scoreExporter } : {}),
    get execution() {
      return execution();
    },
    async close() {
      await scoreExporter?.close().catch(() => undefined);
      await metrics.close();
      await queues.close().catch(() => undefined);
      await executor?.close().catch(() => undefined);
      redis.disconnect();
      await prisma.$disconnect();
    },
  };
}
