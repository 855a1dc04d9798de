import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "../lib/logger.js";
import { queueRegistry, type JobPayload, type QueueName } from "./registry.js";

/** Producers for every queue of the registry; `add` validates the payload against its schema. */
export interface Queues {
  add<Q extends QueueName>(queue: Q, payload: JobPayload<Q>, opts?: { jobId?: string; delay?: number }): Promise<void>;
  /** Adds many jobs in one round trip; a job whose id already exists is not added again. */
  addBulk<Q extends QueueName>(queue: Q, jobs: { payload: JobPayload<Q>; jobId?: string }[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds one BullMQ Queue per registry entry on a fail-fast producer connection.
 * @throws ZodError when a payload breaks its queue's schema; the Redis error when Redis is down.
 */
export function createQueues(connection: Redis, prefix: string, logger: Logger): Queues {
  const queues = new Map<QueueName, Queue>();
  for (const name of Object.keys(queueRegistry) as QueueName[]) {
    const queue = new Queue(name, { connection, prefix, defaultJobOptions: queueRegistry[name].jobOptions });
    queue.on("error", (err) => logger.debug({ queue: name, err: err.message }, "queue connection error"));
    queues.set(name, queue);
  }
  return {
    async add(queue, payload, opts) {
      const data = queueRegistry[queue].payload.parse(payload);
      await queues.get(queue)!.add(queue, data, opts);
    },
    async addBulk(queue, jobs) {
      if (jobs.length === 0) return;
      const schema = queueRegistry[queue].payload;
      const entries = jobs.map((job) => ({ name: queue, data: schema.parse(job.payload), opts: job.jobId ? { jobId: job.jobId } : {} }));
      await queues.get(queue)!.addBulk(entries);
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
