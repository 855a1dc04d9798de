import type { Logger } from "./logger.js";
import { redisReachable, serversOf, type Redis } from "./redis.js";

/** What {@link checkRedisOperations} found. */
export interface RedisOperationsReport {
  /** `maxmemory-policy`, or null when CONFIG is not allowed (managed Redis). */
  maxmemoryPolicy: string | null;
  /** True when Redis keeps its data across a restart (AOF or RDB snapshots). */
  persistent: boolean | null;
  /** Problems, each a sentence for the log. */
  problems: string[];
}

/** Thrown by {@link checkRedisOperations} in `refuse` mode when Redis may evict keys. */
export class RedisEvictionError extends Error {
  constructor(policy: string) {
    super(`Redis maxmemory-policy is "${policy}": Redis may evict BullMQ's jobs and locks under memory pressure. Set it to noeviction (or REDIS_EVICTION_CHECK=warn to start anyway)`);
    this.name = "RedisEvictionError";
  }
}

/**
 * Checks at start what BullMQ needs of Redis: `maxmemory-policy noeviction` (else jobs and
 * locks can vanish under memory pressure: warned, or refused with `mode: "refuse"`), and
 * persistence (AOF or snapshots). Without persistence a Redis restart loses every queued job;
 * nothing is lost for good (owed evaluations and experiments are in Postgres and the worker's
 * reconciler queues them again) but they run only after the reconciler's next pass: logged at
 * info level.
 * @throws RedisEvictionError in `refuse` mode when the policy is not noeviction.
 */
export async function checkRedisOperations(redis: Redis, mode: "warn" | "refuse" | "off", logger: Logger): Promise<RedisOperationsReport> {
  const report: RedisOperationsReport = { maxmemoryPolicy: null, persistent: null, problems: [] };
  if (mode === "off") return report;
  // A fail-fast connection refuses commands until it is ready: wait for it (bounded), else the
  // check would read nothing on every start and `refuse` could never refuse.
  await redisReachable(redis, 5_000);
  try {
    // Every master of a cluster holds its own keys: the worst answer counts (a policy other than
    // noeviction on any master; not persistent when any master is not).
    for (const server of serversOf(redis)) {
      const [policy, aof, save] = await Promise.all([
        server.config("GET", "maxmemory-policy") as Promise<string[]>,
        server.config("GET", "appendonly") as Promise<string[]>,
        server.config("GET", "save") as Promise<string[]>,
      ]);
      const persistent = aof[1] === "yes" || Boolean(save[1]?.trim());
      if (report.maxmemoryPolicy === null || (policy[1] && policy[1] !== "noeviction")) report.maxmemoryPolicy = policy[1] ?? null;
      report.persistent = report.persistent === false ? false : persistent;
    }
  } catch (error) {
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, "could not read the Redis configuration (CONFIG GET refused?); make sure maxmemory-policy is noeviction");
    return report;
  }
  if (report.maxmemoryPolicy && report.maxmemoryPolicy !== "noeviction") {
    if (mode === "refuse") throw new RedisEvictionError(report.maxmemoryPolicy);
    report.problems.push(`maxmemory-policy is ${report.maxmemoryPolicy}, not noeviction: jobs and locks may be evicted`);
    logger.warn({ maxmemoryPolicy: report.maxmemoryPolicy }, "Redis may evict keys: set maxmemory-policy noeviction (REDIS_EVICTION_CHECK=refuse makes this fatal)");
  }
  if (report.persistent === false) {
    report.problems.push("Redis keeps nothing on disk: a restart loses the queue until the reconciler re-queues it");
    logger.info("Redis has no persistence (no AOF, no snapshots): after a Redis restart the reconciler queues owed work again (RECONCILE_INTERVAL_MS)");
  }
  return report;
}
