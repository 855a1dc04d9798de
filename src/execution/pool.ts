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
 * every library's name, version and source hash, and the mode. Runners are never shared between
 * workspaces because the workspace id is part of the key (and checked again on checkout).
 */
export function poolKeyOf(key: ExecuteKey): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify([key.workspaceId, key.templateVersionId, key.mode, key.sourceCode]));
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
  private waiters: (() => void)[] = [];
  private readonly sweeper: NodeJS.Timeout;

  constructor(readonly options: PoolOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(options.idleMs, 30_000)));
    this.sweeper.unref();
  }

  /** Waits for a busy slot. Pair with {@link releaseSlot}. */
  async acquireSlot(): Promise<void> {
    if (this.busy < this.options.maxBusy) {
      this.busy += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** True when a slot is free right now (used to decide whether to add a lane). */
  get hasFreeSlot(): boolean {
    return this.busy < this.options.maxBusy;
  }

  /** Frees a busy slot, handing it straight to the next waiter if any. */
  releaseSlot(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.busy -= 1;
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
