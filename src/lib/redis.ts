import { Redis } from "ioredis";

/**
 * A Redis connection.
 * - "producer": fails fast when Redis is down (no offline queue, one retry), so an API request
 *   that enqueues work errors at once instead of hanging.
 * - "worker": BullMQ workers need `maxRetriesPerRequest: null` and reconnect forever.
 */
export function createRedis(url: string, role: "producer" | "worker"): Redis {
  return role === "producer"
    ? new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, lazyConnect: false })
    : new Redis(url, { maxRetriesPerRequest: null });
}

/**
 * True when Redis answers PING within `timeoutMs`. A fail-fast connection refuses commands while
 * it is (re)connecting, so wait for it to be ready first, within the same time budget.
 */
export async function redisReachable(redis: Redis, timeoutMs = 1_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
  });
  try {
    if (redis.status !== "ready") {
      await Promise.race([new Promise((resolve) => redis.once("ready", resolve)), timeout]);
    }
    return (await Promise.race([redis.ping(), timeout])) === "PONG";
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export type { Redis };
