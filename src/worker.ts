import { Worker, type Job } from "bullmq";
import type { App } from "./app.js";
import { createRedis } from "./lib/redis.js";
import { queueRegistry, type JobPayload, type QueueName } from "./queues/registry.js";

/** A job processor: receives the validated payload (ids only) and the job. */
type Processor<Q extends QueueName> = (payload: JobPayload<Q>, job: Job) => Promise<void>;

/** The processor of every queue; processors are idempotent (a retried job changes nothing twice). */
function processors(app: App): { [Q in QueueName]: Processor<Q> } {
  return {
    "api-key-usage": (payload) => app.services.workspaces.recordApiKeyUsage(payload.apiKeyId, new Date(payload.usedAt)),
  };
}

/** The running workers; `close` stops taking jobs and waits for active ones (bounded by the caller). */
export interface Workers {
  close(): Promise<void>;
}

/** Starts one BullMQ worker per registry queue, with error listeners that log with context. */
export function startWorkers(app: App): Workers {
  const connection = createRedis(app.config.REDIS_URL, "worker");
  connection.on("error", (err: Error) => app.logger.warn({ err: err.message }, "worker redis connection error"));
  const table = processors(app);
  const workers = (Object.keys(queueRegistry) as QueueName[]).map((name) => {
    const processor = table[name] as Processor<QueueName>;
    const worker = new Worker(
      name,
      async (job) => processor(queueRegistry[name].payload.parse(job.data) as JobPayload<QueueName>, job),
      { connection, prefix: app.config.QUEUE_PREFIX, concurrency: 4 },
    );
    worker.on("failed", (job, err) => app.logger.warn({ queue: name, jobId: job?.id, attempts: job?.attemptsMade, err }, "job failed"));
    worker.on("error", (err) => app.logger.error({ queue: name, err }, "worker error"));
    return worker;
  });
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
    },
  };
}
