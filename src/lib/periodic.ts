import { isInfrastructureError } from "./infra-errors.js";
import type { Logger } from "./logger.js";

/**
 * Runs `pass` every `intervalMs` milliseconds, one pass at a time (a tick while one runs is
 * skipped), on unref'd timers so it never holds the process open. A failed pass is logged with
 * `failure` (at warn level when Postgres or Redis is unavailable, else error) and the next tick
 * tries again. `runNow` also starts a pass at once.
 * @returns a function that stops the timers and waits for the pass in flight.
 */
export function startPeriodic(options: { pass: () => Promise<unknown>; intervalMs: number; logger: Logger; failure: string; runNow?: boolean }): () => Promise<void> {
  const { pass, intervalMs, logger, failure } = options;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = pass()
      .catch((error: unknown) => logger[isInfrastructureError(error) ? "warn" : "error"]({ err: error instanceof Error ? error.message : String(error) }, failure))
      .finally(() => {
        running = undefined;
      });
  };
  const first = options.runNow ? setTimeout(tick, 0) : undefined;
  const timer = setInterval(tick, intervalMs);
  first?.unref();
  timer.unref();
  return async () => {
    stopped = true;
    if (first) clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
