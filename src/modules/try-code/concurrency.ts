import { randomUUID } from "node:crypto";
import type { Logger } from "../../lib/logger.js";
import type { Redis } from "../../lib/redis.js";

/** Leaves the gate (idempotent). */
export type Leave = () => Promise<void>;

/**
 * A cap on concurrent runs per workspace. `enter` returns a `Leave` when the workspace had fewer
 * than the limit in flight (the run now counts), or null when it is at the limit.
 */
export interface ConcurrencyGate {
  enter(workspaceId: string): Promise<Leave | null>;
}

/** The gate of one process: a counter per workspace (used when no Redis is given, and as the fallback). */
export function memoryConcurrencyGate(limit: number): ConcurrencyGate {
  const running = new Map<string, number>();
  return {
    async enter(workspaceId) {
      const count = running.get(workspaceId) ?? 0;
      if (count >= limit) return null;
      running.set(workspaceId, count + 1);
      let left = false;
      return async () => {
        if (left) return;
        left = true;
        const rest = (running.get(workspaceId) ?? 1) - 1;
        if (rest > 0) running.set(workspaceId, rest);
        else running.delete(workspaceId);
      };
    },
  };
}

/**
 * Takes a lease if fewer than ARGV[2] unexpired leases are held: a sorted set per workspace, one
 * member per run, scored by its lease's expiry (Redis's own clock, so API hosts' clocks do not
 * matter). Expired leases (a process that died holding one) are dropped first.
 * KEYS[1] the set; ARGV[1] lease ms, ARGV[2] limit, ARGV[3] the run's token. Returns 1 or 0.
 */
const ENTER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
`;

/** Extends a held lease (XX: only if still held). KEYS[1] the set; ARGV[1] lease ms, ARGV[2] token. */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
`;

/**
 * The gate shared by every API process on one Redis: at most `limit` runs per workspace in flight
 * across all of them. A run's lease lasts `leaseMs` and is renewed every `leaseMs / 3` while it
 * runs, so a process that dies frees its runs' places within `leaseMs`. When Redis cannot answer,
 * the process's own counter decides (as the request rate limiter's insurance limiter does), and
 * that is logged.
 * @param keyPrefix - the deployment's key prefix (QUEUE_PREFIX): keys are `<prefix>:try-code:running:<workspace id>`.
 */
export function redisConcurrencyGate(redis: Redis, keyPrefix: string, limit: number, logger: Logger, leaseMs = 30_000): ConcurrencyGate {
  const fallback = memoryConcurrencyGate(limit);
  return {
    async enter(workspaceId) {
      const key = `${keyPrefix}:try-code:running:${workspaceId}`;
      const token = randomUUID();
      let taken: unknown;
      try {
        taken = await redis.eval(ENTER, 1, key, leaseMs, limit, token);
      } catch (error) {
        logger.warn({ err: error instanceof Error ? error.message : String(error), workspaceId }, "tryCode concurrency: Redis did not answer; this process's own count decides");
        return fallback.enter(workspaceId);
      }
      if (Number(taken) !== 1) return null;
      const renew = setInterval(() => {
        redis.eval(RENEW, 1, key, leaseMs, token).catch(() => undefined);
      }, Math.max(Math.floor(leaseMs / 3), 100));
      renew.unref();
      let left = false;
      return async () => {
        if (left) return;
        left = true;
        clearInterval(renew);
        await redis.zrem(key, token).catch(() => undefined); // else it expires with its lease
      };
    },
  };
}
