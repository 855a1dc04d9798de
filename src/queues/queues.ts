import { FlowProducer, Job, Queue, type FlowJob } from "bullmq";
import type { Redis } from "../lib/redis.js";
import type { Logger } from "../lib/logger.js";
import { queueRegistry, type JobPayload, type QueueName } from "./registry.js";

/** Producers for every queue of the registry; `add` validates the payload against its schema. */
export interface Queues {
  add<Q extends QueueName>(queue: Q, payload: JobPayload<Q>, opts?: { jobId?: string; delay?: number }): Promise<void>;
  /** Adds many jobs in one round trip; a job whose id already exists is not added again. */
  addBulk<Q extends QueueName>(queue: Q, jobs: { payload: JobPayload<Q>; jobId?: string }[]): Promise<void>;
  /**
   * Adds flows atomically (one Redis transaction): each parent job waits in waiting-children
   * until every child has completed. Job options are the registry's, plus the given id and delay.
   */
  addFlows(flows: FlowSpec[]): Promise<void>;
  /**
   * Moves a delayed job to wait now. @returns false when there is no such job or it is not
   * delayed any more (already promoted, running or done) — promoting is idempotent.
   */
  promote(queue: QueueName, jobId: string): Promise<boolean>;
  /** The BullMQ state of each job id ("unknown" when there is no such job), in order. */
  states(queue: QueueName, jobIds: readonly string[]): Promise<string[]>;
  /** Removes a finished (failed or completed) job so that its id can be queued again; false when it could not be removed. */
  remove(queue: QueueName, jobId: string): Promise<boolean>;
  /**
   * Creates or updates a BullMQ job scheduler: a job with `payload` every `everyMs`, at slots
   * `offsetMs` after multiples of `everyMs` since the epoch (idempotent).
   */
  upsertScheduler<Q extends QueueName>(queue: Q, schedulerId: string, repeat: { everyMs: number; offsetMs: number }, payload: JobPayload<Q>): Promise<void>;
  /** Removes a job scheduler (and its next job); true when it existed. */
  removeScheduler(queue: QueueName, schedulerId: string): Promise<boolean>;
  /** Every job scheduler of a queue: its id and period (ms). */
  schedulers(queue: QueueName): Promise<{ id: string; everyMs: number | null }[]>;
  close(): Promise<void>;
}

/** One job of a flow: a parent with its children (children have no children here). */
export interface FlowSpec<Q extends QueueName = QueueName, C extends QueueName = QueueName> {
  queue: Q;
  payload: JobPayload<Q>;
  jobId: string;
  children: { queue: C; payload: JobPayload<C>; jobId: string; delay?: number }[];
}

/**
 * Builds one BullMQ Queue per registry entry on a fail-fast producer connection.
 * @throws ZodError when a payload breaks its queue's schema; the Redis error when Redis is down.
 */
export function createQueues(connection: Redis, prefix: string, logger: Logger): Queues {
  const queues = new Map<QueueName, Queue>();
  for (const name of Object.keys(queueRegistry) as QueueName[]) {
    const queue = new Queue(name, { connection, prefix, defaultJobOptions: queueRegistry[name].jobOptions });
    queue.on("error", (err) => logger.warn({ queue: name, err: err.message }, "queue error (ioredis reconnects; jobs added meanwhile fail)"));
    queues.set(name, queue);
  }
  const flows = new FlowProducer({ connection, prefix });
  flows.on("error", (err) => logger.warn({ err: err.message }, "flow producer error (ioredis reconnects)"));
  const flowJob = (queue: QueueName, payload: unknown, jobId: string, delay?: number, children?: FlowJob[]): FlowJob => ({
    name: queue,
    queueName: queue,
    data: queueRegistry[queue].payload.parse(payload),
    opts: { ...queueRegistry[queue].jobOptions, jobId, ...(delay ? { delay } : {}) },
    ...(children ? { children } : {}),
  });
  return {
    async addFlows(specs) {
      if (specs.length === 0) return;
      await flows.addBulk(specs.map((f) => flowJob(f.queue, f.payload, f.jobId, undefined, f.children.map((c) => flowJob(c.queue, c.payload, c.jobId, c.delay)))));
    },
    async promote(queue, jobId) {
      const job = await Job.fromId(queues.get(queue)!, jobId);
      if (!job) return false;
      try {
        await job.promote();
        return true;
      } catch {
        return false;
      }
    },
    async states(queue, jobIds) {
      const q = queues.get(queue)!;
      return Promise.all(jobIds.map((id) => q.getJobState(id)));
    },
    async remove(queue, jobId) {
      const job = await Job.fromId(queues.get(queue)!, jobId);
      if (!job) return true;
      try {
        await job.remove({ removeChildren: true });
        return true;
      } catch {
        return false; // active (locked) or just taken: it is alive, leave it
      }
    },
    async upsertScheduler(queue, schedulerId, repeat, payload) {
      const data = queueRegistry[queue].payload.parse(payload);
      await queues.get(queue)!.upsertJobScheduler(schedulerId, { every: repeat.everyMs, offset: repeat.offsetMs }, { name: queue, data, opts: queueRegistry[queue].jobOptions });
    },
    async removeScheduler(queue, schedulerId) {
      return queues.get(queue)!.removeJobScheduler(schedulerId);
    },
    async schedulers(queue) {
      const list = await queues.get(queue)!.getJobSchedulers(0, -1, true);
      return list.map((s) => ({ id: s.key, everyMs: s.every ?? null }));
    },
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
      await flows.close();
    },
  };
}
