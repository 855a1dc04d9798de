import type { RateLimiterRedis } from "rate-limiter-flexible";
import { RateLimitedError } from "./errors.js";
import { takeRate } from "./rate-limits.js";

/**
 * An inspector (template or library: src/lib/inspect-python.ts) that first takes one point of the
 * workspace's inspection budget (config RATE_LIMIT_INSPECTIONS_PER_MINUTE, Redis key
 * `<prefix>:rate:inspection`) per source it parses, whatever request asks (validateTemplate, a
 * query, included: 30 aliases cost 30 points; tryCode; template and library saves). An inspection
 * with no workspace (start-up, the worker's run preparation) takes nothing.
 * @throws RateLimitedError (LIMIT_EXCEEDED, HTTP 429, retryAfterSeconds) when the budget is spent:
 *   nothing is parsed.
 */
export function budgetedInspector<R>(inspector: (source: string, workspaceId?: string) => Promise<R>, budget: RateLimiterRedis | null): (source: string, workspaceId?: string) => Promise<R> {
  return async (source, workspaceId) => {
    if (workspaceId) {
      const wait = await takeRate(budget, workspaceId);
      if (wait) {
        throw new RateLimitedError(
          `rate limit: at most ${budget!.points} source inspections per minute per workspace (every source parsed counts: validateTemplate, tryCode, template and library saves); retry in ${wait} s`,
          wait,
        );
      }
    }
    return inspector(source, workspaceId);
  };
}
