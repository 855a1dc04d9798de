import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Redis } from "./redis.js";

/**
 * The per-workspace budgets, each counted in Redis under its own key (`<prefix>:rate:<budget>`):
 * `ingest` is shared by `ingestSpans` and `POST /v1/traces`; `read` is taken by queries and
 * subscriptions only; `inspection` by every source parsed on a workspace's request (src/lib/source-inspection.ts). A limiter of a service (another budget name) sits beside these with its own
 * key, made by the same {@link rateLimiter}.
 */
export type RateBudget = "ingest" | "try-code" | "mutation" | "read" | "inspection";

/**
 * A per-workspace limiter of `points` calls a minute for one budget, counted in Redis under
 * `<prefix>:rate:<budget>` (so every API process and every transport shares it); an in-memory
 * limiter stands in while Redis is down. @returns null when `points` is 0 (no limit).
 */
export function rateLimiter(redis: Redis, budget: RateBudget, points: number, prefix: string): RateLimiterRedis | null {
  return points > 0
    ? new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:rate:${budget}`, points, duration: 60, insuranceLimiter: new RateLimiterMemory({ points, duration: 60 }) })
    : null;
}

/**
 * Takes `points` (default 1) of `workspaceId` from a limiter. @returns null when they fit, else
 * the seconds to wait before they fit (at least 1).
 */
export async function takeRate(limiter: RateLimiterRedis | null, workspaceId: string, points = 1): Promise<number | null> {
  if (!limiter) return null;
  try {
    await limiter.consume(workspaceId, points);
    return null;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
  }
}
