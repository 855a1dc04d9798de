/**
 * At most `limit` holders at once per key (a connection's maxConcurrentRequests), in this process.
 * Waiters are served first in, first out. The limit is read on each acquire, so a changed limit
 * applies to the next holders.
 */
export function createKeyedSemaphore() {
  const states = new Map<string, { active: number; waiting: (() => void)[] }>();

  /**
   * Runs `task` once a slot of `key` is free (at most `limit` tasks of the key at once).
   * @returns what `task` returns; its error is rethrown, and the slot is freed either way.
   */
  async function run<T>(key: string, limit: number, task: () => Promise<T>): Promise<T> {
    let state = states.get(key);
    if (!state) states.set(key, (state = { active: 0, waiting: [] }));
    if (state.active >= Math.max(1, limit)) await new Promise<void>((resolve) => state!.waiting.push(resolve));
    else state.active += 1;
    try {
      return await task();
    } finally {
      const next = state.waiting.shift();
      // The slot passes to the next waiter as it is (active unchanged), else it is freed.
      if (next) next();
      else if (--state.active === 0) states.delete(key);
    }
  }

  /** Tasks of `key` running now (for tests and metrics). */
  const active = (key: string): number => states.get(key)?.active ?? 0;

  return { run, active };
}

/** A keyed semaphore. */
export type KeyedSemaphore = ReturnType<typeof createKeyedSemaphore>;
