/**
 * Exports every span run's scores (live and backfill) as `gen_ai.evaluation.result` events (score-events.ts) over
 * OTLP/HTTP protobuf to a collector (`SCORE_EXPORT_OTLP_ENDPOINT`, a /v1/logs URL), with the
 * OpenTelemetry logs SDK: a batch processor and the official OTLP exporter. Off the hot path:
 * the worker calls `runRecorded` after the run's transaction committed; the run is read and the
 * events queued in the background, and the SDK sends them in batches. A failed read or export
 * is logged, never thrown: scores stay in PostgreSQL whatever the collector does.
 */
import { context, trace, TraceFlags } from "@opentelemetry/api";
import type { LogRecordExporter } from "@opentelemetry/sdk-logs";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { evaluationEvents, EVALUATION_EVENT } from "./score-events.js";

/** The score exporter of a process. */
export interface ScoreExporter {
  /**
   * A run (live or backfill) was committed: export its scores (in the background). Only runs on
   * span targets are exported (an event is tied to its span's trace); others are ignored.
   */
  runRecorded(run: { workspaceId: string; targetType: string; targetId: string; evaluatorId: string }): void;
  /** Waits until every queued event was handed to the collector (tests, shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Logs each failed export with our logger (the SDK would only tell its diag logger). */
function loggingExporter(inner: LogRecordExporter, logger: Logger): LogRecordExporter {
  return {
    export(records, done) {
      inner.export(records, (result) => {
        if (result.code !== 0) logger.warn({ err: result.error, events: records.length }, "score export to the OTLP collector failed");
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** The logs SDK and its OTLP exporter, loaded on first use (seconds of imports a process without export never pays). */
async function createProvider(endpoint: string, serviceName: string, logger: Logger) {
  const [{ OTLPLogExporter }, { resourceFromAttributes }, { BatchLogRecordProcessor, LoggerProvider }] = await Promise.all([
    import("@opentelemetry/exporter-logs-otlp-proto"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-logs"),
  ]);
  const exporter = loggingExporter(new OTLPLogExporter({ url: endpoint }), logger);
  return new LoggerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    processors: [new BatchLogRecordProcessor({ exporter, scheduledDelayMillis: 1000 })],
  });
}

/** Creates the exporter to `endpoint` (an OTLP/HTTP logs URL). */
export function createScoreExporter(deps: { endpoint: string; prisma: PrismaClient; logger: Logger; serviceName?: string }): ScoreExporter {
  const { prisma, logger } = deps;
  let providing: ReturnType<typeof createProvider> | undefined;
  const provider = () => (providing ??= createProvider(deps.endpoint, deps.serviceName ?? "oodle-code-evaluators", logger));
  const pending = new Set<Promise<void>>();

  async function exportRun(key: { spanId: string; evaluatorId: string }): Promise<void> {
    const run = await prisma.run.findUnique({
      where: { spanId_evaluatorId: { spanId: key.spanId, evaluatorId: key.evaluatorId } },
      select: {
        id: true,
        outcome: true,
        errorType: true,
        backfillId: true,
        finishedAt: true,
        evaluator: { select: { name: true } },
        span: { select: { traceId: true, spanId: true, attributes: true } },
        scores: { select: { name: true, value: true, dataType: true, higherIsBetter: true, comment: true }, orderBy: { position: "asc" } },
      },
    });
    if (!run) return;
    const otelLogger = (await provider()).getLogger("oodle.evaluations", "1");
    for (const event of evaluationEvents(run)) {
      const ctx = event.spanContext
        ? trace.setSpanContext(context.active(), { traceId: event.spanContext.traceId, spanId: event.spanContext.spanId, traceFlags: TraceFlags.SAMPLED })
        : context.active();
      otelLogger.emit({ eventName: EVALUATION_EVENT, attributes: event.attributes, timestamp: event.timestamp, context: ctx });
    }
  }

  return {
    runRecorded(run) {
      if (run.targetType !== "span") return;
      const job = exportRun({ spanId: run.targetId, evaluatorId: run.evaluatorId })
        .catch((error: unknown) => logger.warn({ err: error, spanId: run.targetId, evaluatorId: run.evaluatorId }, "could not read a run for score export"))
        .finally(() => pending.delete(job));
      pending.add(job);
    },
    async flush() {
      await Promise.all([...pending]);
      if (providing) await (await providing).forceFlush();
    },
    async close() {
      await Promise.all([...pending]);
      if (providing) await (await providing).shutdown().catch((error: unknown) => logger.warn({ err: error }, "score exporter shutdown failed"));
    },
  };
}
