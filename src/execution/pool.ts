import { createHash } from "node:crypto";
import type { RunnerProcess } from "./runner-process.js";
import type { ExecuteKey } from "./types.js";

/** Sizing of the runner pool. */
export interface PoolOptions {
  /** At most this many runners execute items at once (default: os.availableParallelism()). */
  maxBusy: number;
  /** At most this many warm runners wait idle; the least recently used is closed first. */
  maxIdle: number;
  /** An idle runner older than this (ms) is closed. */
  idleMs: number;
}

/**
 * The key under which runners are reused: workspace, template version, a hash of the source,
 * every library's name, version and source hash, the mode and the trust domain (the evaluator,
 * or the tryCode caller: another evaluator's setting values never reach its runner). Runners are never shared between
 * workspaces because the workspace id is part of the key (and checked again on checkout).
 */
export function poolKeyOf(key: ExecuteKey): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify([key.workspaceId, key.templateVersionId, key.mode, key.sourceCode, key.trustDomain ?? null]));
  if (key.limits && Object.keys(key.limits).length) hash.update(JSON.stringify(["limits", key.limits.cpuTimeMs ?? null, key.limits.wallTimeMs ?? null, key.limits.memoryBytes ?? null]));
  for (const name of Object.keys(key.libraries).sort()) {
    const lib = key.libraries[name]!;
    hash.update(JSON.stringify([name, lib.version, lib.source]));
  }
  return `${key.workspaceId}:${hash.digest("hex")}`;
}

interface IdleEntry {
  poolKey: string;
  runner: RunnerProcess;
}

/**
 * Warm runners by key (bounded LRU with an idle timeout) and a counting semaphore of busy slots.
 */
export class RunnerPool {
  private idle: IdleEntry[] = []; // least recently used first
  private busy = 0;
  /** Slots held per workspace, and the waiters of each workspace (workspaces in arrival order). */
  private busyBy = new Map<string, number>();
  private waiters = new Map<string, (() => void)[]>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(readonly options: PoolOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(options.idleMs, 30_000)));
    this.sweeper.unref();
  }

  /**
   * Waits for a busy slot for `workspaceId`. Pair with {@link releaseSlot} (same workspace).
   * Fair share: a freed slot goes to the waiting workspace that holds the fewest slots (round
   * robin among equals), never first come, first served across workspaces, so one workspace's
   * backlog cannot starve another's one item: it waits for at most one item per slot.
   */
  async acquireSlot(workspaceId: string): Promise<void> {
    if (this.busy < this.options.maxBusy) {
      this.busy += 1;
      this.busyBy.set(workspaceId, (this.busyBy.get(workspaceId) ?? 0) + 1);
      return;
    }
    await new Promise<void>((resolve) => {
      const list = this.waiters.get(workspaceId);
      if (list) list.push(resolve);
      else this.waiters.set(workspaceId, [resolve]);
    });
  }

  /** True when a slot is free right now (used to decide whether to add a lane). */
  get hasFreeSlot(): boolean {
    return this.busy < this.options.maxBusy;
  }

  /** Frees `workspaceId`'s busy slot, handing it straight to the fairest waiter if any. */
  releaseSlot(workspaceId: string): void {
    const held = (this.busyBy.get(workspaceId) ?? 1) - 1;
    if (held > 0) this.busyBy.set(workspaceId, held);
    else this.busyBy.delete(workspaceId);
    let chosen: string | undefined;
    for (const waiting of this.waiters.keys()) {
      if (chosen === undefined || (this.busyBy.get(waiting) ?? 0) < (this.busyBy.get(chosen) ?? 0)) chosen = waiting;
    }
    if (chosen === undefined) {
      this.busy -= 1;
      return;
    }
    const list = this.waiters.get(chosen)!;
    const next = list.shift()!;
    // Round robin among equals: the workspace just served waits behind the others.
    this.waiters.delete(chosen);
    if (list.length > 0) this.waiters.set(chosen, list);
    this.busyBy.set(chosen, (this.busyBy.get(chosen) ?? 0) + 1);
    next();
  }

  /** Takes an idle runner for this key, if one is usable. */
  take(poolKey: string, workspaceId: string): RunnerProcess | undefined {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const entry = this.idle[i]!;
      if (entry.poolKey !== poolKey) continue;
      this.idle.splice(i, 1);
      if (entry.runner.workspaceId !== workspaceId) throw new Error("runner pool: workspace mismatch on checkout");
      if (entry.runner.usable) return entry.runner;
      void entry.runner.close();
    }
    return undefined;
  }

  /** Returns a runner after use; a runner that is not usable is closed instead. */
  put(poolKey: string, runner: RunnerProcess): void {
    if (!runner.usable) {
      void runner.close();
      return;
    }
    this.idle.push({ poolKey, runner });
    while (this.idle.length > this.options.maxIdle) void this.idle.shift()!.runner.close();
  }

  /** Busy slots, idle runners and the slot count (metrics). */
  stats(): { busy: number; idle: number; maxBusy: number } {
    return { busy: this.busy, idle: this.idle.length, maxBusy: this.options.maxBusy };
  }

  /** Number of idle runners (for tests and metrics). */
  get idleCount(): number {
    return this.idle.length;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.options.idleMs;
    const keep: IdleEntry[] = [];
    for (const entry of this.idle) {
      if (entry.runner.lastUsedAt < cutoff || !entry.runner.usable) void entry.runner.close();
      else keep.push(entry);
    }
    this.idle = keep;
  }

  /** Closes every idle runner and stops the sweeper. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = this.idle;
    this.idle = [];
    await Promise.all(all.map((entry) => entry.runner.close()));
  }
}
