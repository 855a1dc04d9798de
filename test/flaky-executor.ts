import type { ExecuteItem, ExecuteKey, Executor, ItemResult } from "../src/execution/index.js";

/**
 * The real executor, but the next `state.failures` calls answer `sandbox_error` for every item
 * without running anything (a runner that died): for tests of the retry rules.
 * @returns the wrapping executor and its counters (`calls`: execute calls so far).
 */
export function flakyExecutor(real: Executor) {
  const state = { failures: 0, calls: 0 };
  const fault = (): ItemResult => ({ outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "SandboxError", message: "runner died (injected)", traceback: "" } });
  const executor: Executor = {
    limits: real.limits,
    ready: () => real.ready(),
    close: () => real.close(),
    async execute(key: ExecuteKey, items: ExecuteItem[]) {
      state.calls += 1;
      if (state.failures > 0) {
        state.failures -= 1;
        return items.map(fault);
      }
      return real.execute(key, items);
    },
  };
  return { executor, state };
}
