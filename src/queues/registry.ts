import { z } from "zod";

/**
 * The typed registry of BullMQ queues: each queue's name, its payload schema (ids only, never
 * user data or secrets) and default job options. Producers and workers are built from it, so a
 * payload is checked against the same schema on both sides.
 */
export const queueRegistry = {
  /** Records when an API key was last used, off the request path (at most once a minute per key). */
  "api-key-usage": {
    payload: z.object({ apiKeyId: z.uuid(), usedAt: z.iso.datetime() }),
    jobOptions: { attempts: 3, backoff: { type: "exponential" as const, delay: 500 }, removeOnComplete: 1000, removeOnFail: 1000 },
  },
} as const;

/** A queue name of the registry. */
export type QueueName = keyof typeof queueRegistry;
/** The payload type of a queue. */
export type JobPayload<Q extends QueueName> = z.infer<(typeof queueRegistry)[Q]["payload"]>;
