import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Logger } from "../lib/logger.js";
import type { SandboxPaths } from "./bwrap-args.js";
import { withEvaluatorLimits } from "./evaluator-limits.js";
import { resolveLimits, type Limits } from "./limits.js";
import { defaultSandboxPaths, seccompFilterPath } from "./paths.js";
import { poolKeyOf, RunnerPool, type PoolOptions } from "./pool.js";
import { preflight } from "./preflight.js";
import { RunnerProcess, SandboxStartError } from "./runner-process.js";
import { WorkspaceMismatchError, type ExecuteItem, type ExecuteKey, type ItemResult } from "./types.js";

export { LIMIT_SPECS, LimitError, resolveLimits, type Limits } from "./limits.js";
export { EVALUATOR_LIMIT_NAMES, evaluatorLimitsOf, evaluatorLimitsSchema, runLimits, withEvaluatorLimits, type EvaluatorLimits } from "./evaluator-limits.js";
export { OUTCOMES, isOutcome, type Outcome } from "../lib/outcomes.js";
export { PreflightError, preflight } from "./preflight.js";
export { validateScores, RESULT_BOUNDS, type Score } from "./result-validation.js";
export { WorkspaceMismatchError, type ExecuteItem, type ExecuteKey, type ItemError, type ItemResult } from "./types.js";

/** Options of {@link createExecutor}. */
export interface ExecutorOptions {
  /** Lower any limit (never above its ceiling: throws LimitError naming it). */
  limits?: Partial<Limits>;
  logger: Logger;
  /** python-lib directory to bind into the sandbox; defaults to the repository's. */
  pythonLibDir?: string;
  /** Pool sizing; defaults: maxBusy = os.availableParallelism(), maxIdle 16, idleMs 60 000. */
  pool?: Partial<PoolOptions>;
  /** Told when a runner starts and when one is closed because it retired or died (metrics). */
  observer?: RunnerObserver;
}

/** Runner lifecycle events, for metrics. */
export interface RunnerObserver {
  runnerStarted(): void;
  /** `died`: the process exited mid-work; `retired`: it asked to be replaced (limits) or broke the protocol. */
  runnerClosed(reason: "retired" | "died"): void;
}

/** The runner pool right now (metrics). */
export interface PoolStats {
  busy: number;
  idle: number;
  maxBusy: number;
}

/** Runs evaluator code in the sandbox. */
export interface Executor {
  /**
   * Runs every item with the evaluator of `key`; results come back in item order.
   * @throws WorkspaceMismatchError when an item's workspaceId differs from the key's (nothing runs).
   * @throws PreflightError when the sandbox is not usable on this machine (fail closed).
   */
  execute(key: ExecuteKey, items: ExecuteItem[]): Promise<ItemResult[]>;
  /**
   * Probes the sandbox once (see `preflight`); later calls return the same promise. A worker
   * awaits it at start so that it refuses to start, with the reason, when the sandbox is unusable.
   * @throws PreflightError saying which layer is missing.
   */
  ready(): Promise<void>;
  /** Closes every runner. */
  close(): Promise<void>;
  /** The effective limits. */
  readonly limits: Readonly<Limits>;
  /** Busy slots, idle warm runners and the slot count (optional: test doubles need not have it). */
  stats?(): PoolStats;
}

const MAX_BATCH = 1024;
/** Fresh runners in a row that answer none of their first batch before a lane gives up. */
const MAX_EMPTY_STARTS = 3;

/**
 * Creates an executor: a pool of warm sandboxed runners keyed by workspace, template version,
 * library versions and mode. The sandbox is probed (see `preflight`) before the first item.
 * @throws LimitError when `options.limits` raises a limit past its ceiling.
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const limits = resolveLimits(options.limits);
  const { logger } = options;
  const pool = new RunnerPool({
    maxBusy: options.pool?.maxBusy ?? availableParallelism(),
    maxIdle: options.pool?.maxIdle ?? 16,
    idleMs: options.pool?.idleMs ?? 60_000,
  });
  let paths: SandboxPaths | undefined;
  let seccompProgram: Uint8Array | undefined;
  let ready: Promise<void> | undefined;
  const ensureReady = (): Promise<void> =>
    (ready ??= (async () => {
      paths = defaultSandboxPaths(options.pythonLibDir);
      seccompProgram = readFileSync(seccompFilterPath());
      await preflight(paths, seccompProgram);
    })());

  const start = async (key: ExecuteKey) => {
    // An evaluator's own CPU, wall time and memory (within the ceilings) replace the defaults for its runners.
    const own = key.limits && Object.keys(key.limits).length ? withEvaluatorLimits(limits, key.limits) : limits;
    const runner = await RunnerProcess.start({ paths: paths!, seccompProgram: seccompProgram!, limits: own, key, logger });
    options.observer?.runnerStarted();
    return runner;
  };
  const retire = (runner: RunnerProcess) => options.observer?.runnerClosed(runner.died ? "died" : "retired");

  async function execute(key: ExecuteKey, items: ExecuteItem[]): Promise<ItemResult[]> {
    const foreign = items.findIndex((item) => item.workspaceId !== key.workspaceId);
    if (foreign >= 0) {
      throw new WorkspaceMismatchError(`item ${foreign} belongs to another workspace than the evaluator's; nothing was run`);
    }
    await ensureReady();
    const poolKey = poolKeyOf(key);
    const results: (ItemResult | undefined)[] = new Array(items.length).fill(undefined);
    const queue = items.map((_, index) => index);
    let lanes = 0;
    let avgMs = 0;
    let measured = 0;

    const lane = async (): Promise<void> => {
      lanes += 1;
      let isolate = 0; // items to run one per batch, after a runner died mid-batch
      let deadRunner: RunnerProcess | undefined; // the runner whose death set `isolate`
      await pool.acquireSlot(key.workspaceId);
      let runner: RunnerProcess | undefined;
      // Up to two batches per runner: the second is encoded while the first runs and written as
      // soon as it finishes, so the runner never waits for Node between batches.
      const inflight: { runner: RunnerProcess; batch: number[]; promise: Promise<(ItemResult | undefined)[]>; queuedAt: number }[] = [];
      let lastDone = 0; // when the previous batch came back (a queued batch starts running then)
      // Runners started by this lane whose first batch has not come back yet, and how many fresh
      // runners in a row answered nothing (a runner always runs its first item, so this stays 0;
      // it guards against starting runners forever if that ever breaks).
      const fresh = new Set<RunnerProcess>();
      let emptyStarts = 0;
      try {
        runner = pool.take(poolKey, key.workspaceId);
        while (queue.length > 0 || inflight.length > 0) {
          while (queue.length > 0 && inflight.length < (isolate > 0 ? 1 : 2)) {
            if (!runner?.usable) {
              if (inflight.length > 0) break; // let the old runner's batches come back first
              if (runner) {
                retire(runner);
                void runner.close();
              }
              runner = undefined;
              try {
                runner = await start(key);
                fresh.add(runner);
              } catch (error) {
                const message = error instanceof Error ? error.message : String(error);
                logger.error({ workspaceId: key.workspaceId, err: message }, "sandbox runner failed to start");
                for (const index of queue.splice(0, Math.min(queue.length, MAX_BATCH))) {
                  results[index] = { outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: error instanceof SandboxStartError ? "SandboxStartError" : "SandboxError", message, traceback: "" } };
                }
                continue;
              }
            }
            // Small first batches measure the item time; then batches share the rest between lanes.
            const size = isolate > 0 ? 1 : measured === 0 ? 8 : Math.max(1, Math.min(MAX_BATCH, Math.ceil(queue.length / (2 * lanes))));
            if (isolate > 0) isolate -= 1;
            const batch = queue.splice(0, size);
            inflight.push({ runner, batch, promise: runner.runBatch(batch.map((index) => items[index]!)), queuedAt: performance.now() });
          }
          const current = inflight.shift();
          if (!current) continue;
          const batchResults = await current.promise;
          const now = performance.now();
          const ran = batchResults.filter((r) => r !== undefined).length;
          if (ran > 0) {
            avgMs = (avgMs * measured + (now - Math.max(current.queuedAt, lastDone))) / (measured + ran);
            measured += ran;
          }
          lastDone = now;
          if (fresh.delete(current.runner)) emptyStarts = ran > 0 ? 0 : emptyStarts + 1;
          const notRun: number[] = [];
          current.batch.forEach((index, i) => {
            const result = batchResults[i];
            if (result) results[index] = result;
            else notRun.push(index);
          });
          if (current.runner.died && deadRunner !== current.runner) {
            // The runner died during this batch (the first of its batches to come back after
            // that): the unanswered items run one per batch, where the one that killed it shows.
            deadRunner = current.runner;
            if (notRun.length > 0) isolate = notRun.length;
            queue.unshift(...notRun);
          } else if (deadRunner === current.runner) {
            queue.push(...notRun); // queued behind the batch during which the runner died: never sent
          } else {
            queue.unshift(...notRun); // the runner retired first: run them on a fresh one
          }
          if (emptyStarts >= MAX_EMPTY_STARTS) {
            const message = `${MAX_EMPTY_STARTS} fresh runners in a row ran no item; check the limits (runnerCpuTimeMs, cpuTimeMs)`;
            logger.error({ workspaceId: key.workspaceId }, message);
            for (const index of queue.splice(0)) {
              results[index] = { outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "SandboxError", message, traceback: "" } };
            }
          }
          // Add a lane when the remaining work outweighs starting another runner (~100 ms).
          if (queue.length * avgMs > 300 * lanes && pool.hasFreeSlot && lanes < pool.options.maxBusy) void extra.push(lane());
        }
      } finally {
        if (runner && !runner.usable) retire(runner);
        if (runner) pool.put(poolKey, runner);
        pool.releaseSlot(key.workspaceId);
      }
    };
    const extra: Promise<void>[] = [];
    await lane();
    while (extra.length > 0) await extra.shift();
    return results.map(
      (r) => r ?? { outcome: "sandbox_error", scores: [], stdout: "", stderr: "", durationMs: 0, error: { type: "SandboxError", message: "the item was not run", traceback: "" } },
    );
  }

  return {
    execute,
    ready: ensureReady,
    limits,
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}
