import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { execa } from "execa";
import { z } from "zod";
import type { Logger } from "../lib/logger.js";
import type { SandboxPaths } from "./bwrap-args.js";
import { boxMountsUsable, sandboxCommand } from "./box-launch.js";
import { acquireBox, canUseBoxUids, type Box } from "./box-uids.js";
import { encodeFrame, FrameDecoder, FrameError } from "./framing.js";
import type { Limits } from "./limits.js";
import { OUTCOMES, type Outcome } from "../lib/outcomes.js";
import { validateScores } from "./result-validation.js";
import type { ExecuteItem, ExecuteKey, ItemError, ItemResult } from "./types.js";

/** The child's descriptor from which bwrap reads the seccomp program (stdio index 4). */
const SECCOMP_FD = 4;
/** Node's wall-clock SIGKILL comes this long after the runner's own wall-clock timer. */
const WALL_GRACE_MS = 1_000;
/** Time allowed for the sandbox to start and load the template. */
const SETUP_TIMEOUT_MS = 20_000;
/** Bytes of bwrap/runner diagnostics kept (for the log when a runner fails). */
const DIAGNOSTIC_BYTES = 8 * 1024;
const SIGXCPU_EXIT = 128 + 24;
/** Random bytes in each item's nonce. */
const NONCE_BYTES = 12;
/** A runner that retired (or was asked to exit) and has not exited this long after is SIGKILLed. */
const EXIT_GRACE_MS = 1_000;
/**
 * An idle runner's CPU time is sampled this often; one that used more than
 * {@link IDLE_CPU_TICKS} clock ticks (1/100 s) since the first sample of its idle period is killed
 * (user code left a thread running: native threads escape the runner's own thread check).
 */
const IDLE_CHECK_MS = 200;
const IDLE_CPU_TICKS = 5;
/** Bounds of an error report (UTF-16 code units; runner.py caps to the same numbers). */
export const ERROR_BOUNDS = { type: 200, message: 4_000, traceback: 20_000 } as const;

/** Everything needed to start one runner. */
export interface RunnerOptions {
  paths: SandboxPaths;
  /** The compiled base seccomp filter (sandbox/seccomp/base.<arch>.bpf), read once. */
  seccompProgram: Uint8Array;
  limits: Readonly<Limits>;
  key: ExecuteKey;
  logger: Logger;
}

/** Thrown by {@link RunnerProcess.start} when the sandbox itself cannot start (a `sandbox_error`). */
export class SandboxStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxStartError";
  }
}

const errorSchema = z.object({
  type: z.string().max(ERROR_BOUNDS.type),
  message: z.string().max(ERROR_BOUNDS.message),
  traceback: z.string().max(ERROR_BOUNDS.traceback),
});

/** A failure of the runner itself after setup (its diagnostics pipe is closed by then). */
const fatalFrameSchema = z.object({ type: z.literal("fatal"), error: errorSchema });

const resultFrameSchema = z.object({
  type: z.literal("result"),
  id: z.number(),
  nonce: z.string(),
  outcome: z.enum(OUTCOMES),
  scores: z.unknown(),
  stdout: z.string(),
  stderr: z.string(),
  error: errorSchema.nullable(),
  retire: z.boolean(),
});

const setupFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), nonce: z.string(), kind: z.string() }),
  z.object({ type: z.literal("setup_error"), nonce: z.string(), fault: z.enum(["user", "sandbox"]), error: errorSchema }),
]);

/** Bytes kept from a stream, up to a cap. */
class Capped {
  private chunks: Buffer[] = [];
  size = 0;
  exceeded = false;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (chunk.length > room) this.exceeded = true;
    const keep = chunk.length > room ? chunk.subarray(0, Math.max(room, 0)) : chunk;
    if (keep.length > 0) {
      this.chunks.push(keep);
      this.size += keep.length;
    }
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** A batch with its ids and nonces, encoded as one frame. */
interface EncodedBatch {
  items: { id: number; nonce: string }[];
  frame: Buffer;
}

/** A batch waiting for the one in flight to finish. */
interface QueuedBatch {
  items: ExecuteItem[];
  resolve: (results: (ItemResult | undefined)[]) => void;
  encoded: EncodedBatch | undefined;
}

/** The batch in flight: items are answered in order, one result frame each. */
interface Pending {
  items: { id: number; nonce: string }[];
  results: (ItemResult | undefined)[];
  /** Index of the item running now (the first without a result). */
  next: number;
  itemStartedAt: number;
  timer: NodeJS.Timeout;
  done: () => void;
}

/**
 * One sandboxed runner: bwrap + python3.11 running sandbox/runner.py for one {@link ExecuteKey}.
 * Serves one item at a time. Never throws from {@link run}: every failure becomes an outcome.
 */
export class RunnerProcess {
  /** The workspace this runner serves (checked again by the runner for each item). */
  readonly workspaceId: string;
  /** False once the process died, retired or broke the protocol. */
  alive = true;
  /** Set when the template or a library does not load: every item gets this `user_error`. */
  setupError: ItemError | undefined;
  /** Date.now() of the last item's end (for the pool's idle timeout). */
  lastUsedAt = Date.now();
  /** True once the runner died or was killed during a batch (as opposed to retiring). */
  died = false;
  /** True once the sandbox process has exited (unlike `alive`, which turns false on retirement). */
  exited = false;

  private readonly subprocess: ReturnType<typeof spawnSandbox>;
  /** The host uid this sandbox runs as (its own; undefined when the worker is not root). */
  private readonly box: Box | undefined;
  /** Settles once the box is released (after the sandbox exited). */
  private released: Promise<void> | undefined;
  private readonly decoder: FrameDecoder;
  private readonly diagnostics = new Capped(DIAGNOSTIC_BYTES);
  private pending: Pending | undefined;
  /** Batches waiting for the one in flight (see {@link runBatch}). */
  private queued: QueuedBatch[] = [];
  /** True once the frame of the batch in flight has been handed to the pipe in full. */
  private inputFlushed = true;
  private nextId = 1;
  private killReason: "wall" | "violation" | "close" | "idle_cpu" | "idle_threads" | undefined;
  private exitInfo: { exitCode?: number; signal?: string } | undefined;
  private setupWaiter: ((frame: unknown) => void) | undefined;
  private exitTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Host pids of the sandbox's processes and the CPU ticks they had at the idle period's first sample. */
  private idleBaseline: { pids: number[]; ticks: number } | undefined;

  private constructor(
    private readonly options: RunnerOptions,
    box: Box | undefined,
    mounts: boolean,
  ) {
    const { paths, limits, key } = options;
    this.workspaceId = key.workspaceId;
    this.decoder = new FrameDecoder(4 * 1024 * 1024 + 4 * limits.outputBytes);
    this.box = box;
    this.subprocess = spawnSandbox(paths, limits, options.seccompProgram, box, mounts);
    const sub = this.subprocess;
    sub.stdin?.on("error", () => undefined); // EPIPE when the runner is gone; exit handles it
    // User output is captured inside the sandbox (fd 1 and 2 are memfds there); what arrives
    // here is bwrap's or the runner's own diagnostics, kept capped for the log.
    sub.stdout?.on("data", (chunk: Buffer) => this.diagnostics.push(chunk));
    sub.stderr?.on("data", (chunk: Buffer) => this.diagnostics.push(chunk));
    const resultStream = sub.stdio[3] as NodeJS.ReadableStream | undefined;
    resultStream?.on("data", (chunk: Buffer) => this.onResultBytes(chunk));
    resultStream?.on("error", () => undefined);
    void sub.then(
      (result) => this.onExit(result.exitCode, result.signal),
      () => this.onExit(undefined, undefined),
    );
  }

  /**
   * Starts a runner and loads the template and libraries.
   * @returns a runner; when the template or a library fails to load, `setupError` is set and the
   *   process has exited (the runner still answers items, each with that error).
   * @throws SandboxStartError when the sandbox cannot start or breaks the protocol.
   */
  static async start(options: RunnerOptions): Promise<RunnerProcess> {
    let box: Box | undefined;
    let mounts = false;
    try {
      // A root worker's runner starts through box_launch.py, which mounts its /tmp (inode cap)
      // and binds in a mount namespace of its own (box-launch.ts); one that may not mount falls
      // back to bwrap's own tmpfs (said once per process).
      if (canUseBoxUids()) mounts = await boxMountsUsable(options.paths.python, options.paths, options.logger);
      box = canUseBoxUids() ? await acquireBox() : undefined;
    } catch (error) {
      throw new SandboxStartError(`the sandbox did not start: ${error instanceof Error ? error.message : String(error)}`);
    }
    const runner = new RunnerProcess(options, box, mounts);
    await runner.setup();
    return runner;
  }

  private async setup(): Promise<void> {
    const { key, limits } = this.options;
    const nonce = randomBytes(16).toString("hex");
    const libraries = Object.fromEntries(Object.entries(key.libraries).map(([name, lib]) => [name, lib.source]));
    const frame = await new Promise<unknown>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), SETUP_TIMEOUT_MS);
      this.setupWaiter = (value) => {
        clearTimeout(timer);
        resolve(value);
      };
      this.write({ type: "setup", nonce, workspaceId: key.workspaceId, mode: key.mode, source: key.sourceCode, libraries, limits });
    });
    this.setupWaiter = undefined;
    const parsed = setupFrameSchema.safeParse(frame);
    if (!parsed.success || parsed.data.nonce !== nonce) {
      this.kill("violation");
      const detail = this.exitInfo ? ` (exit code ${this.exitInfo.exitCode}, signal ${this.exitInfo.signal})` : "";
      throw new SandboxStartError(`the sandbox did not start${detail}: ${this.diagnostics.text().slice(-2000)}`);
    }
    if (parsed.data.type === "setup_error") {
      if (parsed.data.fault === "sandbox") {
        this.kill("violation");
        throw new SandboxStartError(`the sandbox refused to start: ${parsed.data.error.type}: ${parsed.data.error.message}`);
      }
      this.setupError = parsed.data.error;
      return;
    }
    this.startIdleWatch();
  }

  /** True when the pool may hand this runner another item. */
  get usable(): boolean {
    return this.setupError !== undefined || this.alive;
  }

  /**
   * Runs a batch of items in order. Never rejects: a dead runner, a timeout or a forged frame
   * become outcomes. May be called while a batch is in flight: the new batch is encoded ahead
   * (once the runner has the whole frame in flight) and written the moment the one before it
   * finishes, so the runner does not wait for Node between batches. The runner still receives a
   * batch only after it has answered every item of the previous one.
   * @returns one entry per item; `undefined` for items without an answer because the runner
   *   retired before them or died during the batch (see `died`), or a batch queued behind the
   *   one during which that happened: run them on another runner.
   */
  runBatch(items: ExecuteItem[]): Promise<(ItemResult | undefined)[]> {
    if (this.setupError) {
      const error = this.setupError;
      const now = performance.now();
      return Promise.resolve(items.map(() => finish("user_error", [], "", "", error, now)));
    }
    if (!this.alive || items.length === 0) return Promise.resolve(items.map(() => undefined));
    return new Promise((resolve) => {
      if (!this.pending) {
        this.send(this.encodeBatch(items), resolve);
        return;
      }
      const queued: QueuedBatch = { items, resolve, encoded: undefined };
      this.queued.push(queued);
      if (this.inputFlushed) queued.encoded = this.encodeBatch(items);
    });
  }

  /** Gives each item an id and a fresh nonce and encodes the batch frame. */
  private encodeBatch(items: ExecuteItem[]): EncodedBatch {
    // 96 random bits per item, drawn in one call for the whole batch.
    const random = randomBytes(NONCE_BYTES * items.length);
    const framed = items.map((item, i) => ({
      id: this.nextId++,
      nonce: random.toString("base64", i * NONCE_BYTES, (i + 1) * NONCE_BYTES),
      workspaceId: item.workspaceId,
      document: item.document,
      params: item.params ?? {},
      dependencies: item.dependencies ?? null,
    }));
    return { items: framed.map(({ id, nonce }) => ({ id, nonce })), frame: encodeFrame({ type: "batch", items: framed }) };
  }

  /** Writes a batch to the runner and makes it the one in flight. */
  private send(batch: EncodedBatch, resolve: (results: (ItemResult | undefined)[]) => void): void {
    this.stopIdleWatch();
    const now = performance.now();
    // One wall-clock timer per batch, restarted as each item completes.
    const timer = setTimeout(() => this.kill("wall"), this.options.limits.wallTimeMs + WALL_GRACE_MS);
    let finished = false;
    const pending: Pending = {
      items: batch.items,
      results: new Array<ItemResult | undefined>(batch.items.length).fill(undefined),
      next: 0,
      itemStartedAt: now,
      timer,
      done: () => {
        if (finished) return; // the failure paths may finish a batch that just completed
        finished = true;
        clearTimeout(timer);
        if (this.pending === pending) this.pending = undefined;
        this.lastUsedAt = Date.now();
        this.sendQueued();
        if (!this.pending) this.startIdleWatch();
        resolve(pending.results);
      },
    };
    this.pending = pending;
    this.inputFlushed = false;
    const stdin = this.subprocess.stdin;
    if (!stdin || stdin.destroyed) return;
    stdin.write(batch.frame, () => {
      if (this.pending !== pending) return;
      // The whole frame is in the pipe: encode what waits behind it without delaying the runner.
      this.inputFlushed = true;
      for (const queued of this.queued) queued.encoded ??= this.encodeBatch(queued.items);
    });
  }

  /** Starts the next queued batch, or answers every queued batch with "not run" once the runner is gone. */
  private sendQueued(): void {
    if (this.alive) {
      const next = this.queued.shift();
      if (next) this.send(next.encoded ?? this.encodeBatch(next.items), next.resolve);
      return;
    }
    const queued = this.queued;
    this.queued = [];
    for (const { items, resolve } of queued) resolve(items.map(() => undefined));
  }

  /** Records the result of the item in flight and moves on to the next. */
  private complete(result: ItemResult): void {
    const pending = this.pending;
    if (!pending) return;
    pending.results[pending.next] = result;
    pending.next += 1;
    pending.itemStartedAt = performance.now();
    if (pending.next >= pending.items.length) pending.done();
    else pending.timer.refresh();
  }

  /**
   * Asks the runner to exit, and kills it if it has not within 1 s. Based on the process having
   * exited, not on `alive`: a retired runner is not alive but may still be running (user code can
   * hold up its exit), and nobody may be left to end it.
   */
  async close(): Promise<void> {
    if (this.exited) return this.released;
    if (this.alive) {
      this.write({ type: "exit" });
      this.subprocess.stdin?.end();
      this.scheduleExitKill();
    } else {
      this.kill("close"); // retired or broken: it has no item left to finish
    }
    await this.subprocess.catch(() => undefined);
    await this.released;
  }

  /** SIGKILLs the bwrap process: the PID namespace takes every process of the sandbox with it. */
  kill(reason: "wall" | "violation" | "close" | "idle_cpu" | "idle_threads"): void {
    this.killReason ??= reason;
    this.alive = false;
    this.stopIdleWatch();
    if (!this.exited) this.subprocess.kill("SIGKILL");
  }

  /** Kills the runner unless it exits within {@link EXIT_GRACE_MS} (after retiring or `exit`). */
  private scheduleExitKill(): void {
    if (this.exitTimer || this.exited) return;
    this.exitTimer = setTimeout(() => this.kill("close"), EXIT_GRACE_MS);
    this.exitTimer.unref();
  }

  /** Starts sampling the CPU time of an idle runner (see {@link IDLE_CHECK_MS}). */
  private startIdleWatch(): void {
    if (this.idleTimer || !this.alive || this.exited) return;
    this.idleBaseline = undefined;
    this.idleTimer = setTimeout(() => this.checkIdle(), IDLE_CHECK_MS);
    this.idleTimer.unref();
  }

  private stopIdleWatch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.idleBaseline = undefined;
  }

  /**
   * An idle runner waits in read(): its processes use no CPU. If they do, user code left a thread
   * (or a native pthread, which the runner cannot count) running outside every item's budget:
   * kill the runner (the pool then starts a fresh one).
   */
  private checkIdle(): void {
    this.idleTimer = undefined;
    if (this.pending || !this.alive || this.exited) return;
    if (!this.idleBaseline) {
      const pids = sandboxPids(this.subprocess.pid);
      this.idleBaseline = { pids, ticks: cpuTicks(pids) };
      // Every process of an idle sandbox is single-threaded (bwrap, the runner, its zygote): more
      // threads are user code's (native pthreads, which the runner cannot count), left running
      // outside every item's budget and holding the slot's RLIMIT_NPROC.
      const threads = threadCount(pids);
      if (threads > pids.length) {
        this.options.logger.warn({ workspaceId: this.workspaceId, threads }, "sandbox runner kept threads while idle; killed");
        this.kill("idle_threads");
        return;
      }
    } else {
      const used = cpuTicks(this.idleBaseline.pids) - this.idleBaseline.ticks;
      if (used > IDLE_CPU_TICKS) {
        this.options.logger.warn({ workspaceId: this.workspaceId, ticks: used }, "sandbox runner used CPU while idle; killed");
        this.kill("idle_cpu");
        return;
      }
    }
    this.idleTimer = setTimeout(() => this.checkIdle(), IDLE_CHECK_MS);
    this.idleTimer.unref();
  }

  private write(message: unknown): void {
    const stdin = this.subprocess.stdin;
    if (stdin && !stdin.destroyed) stdin.write(encodeFrame(message));
  }

  private onResultBytes(chunk: Buffer): void {
    let messages: unknown[];
    try {
      messages = this.decoder.push(chunk);
    } catch (error) {
      this.violation(error instanceof FrameError ? error.message : "unreadable frame");
      return;
    }
    for (const message of messages) {
      try {
        this.onMessage(message);
      } catch (error) {
        // A result that breaks validation itself (e.g. nesting deep enough for a RangeError) must
        // not reach the stream's handler uncaught: that would end the whole process.
        this.violation(`the result could not be processed (${error instanceof Error ? error.name : "error"})`);
        return;
      }
    }
  }

  private onMessage(message: unknown): void {
    if (this.setupWaiter) {
      this.setupWaiter(message);
      return;
    }
    const pending = this.pending;
    const fatal = fatalFrameSchema.safeParse(message);
    if (fatal.success) {
      // Logged as data, bounded by the schema; the runner ends after sending it.
      this.options.logger.warn({ workspaceId: this.workspaceId, error: fatal.data.error }, "sandbox runner failed");
      this.kill("violation");
      if (pending) {
        const { type, message: text } = fatal.data.error;
        this.failInFlight(pending, finish("sandbox_error", [], "", "", { type: "SandboxError", message: `the sandbox runner failed: ${type}: ${text}`.slice(0, ERROR_BOUNDS.message), traceback: "" }, pending.itemStartedAt));
      }
      return;
    }
    const expected = pending?.items[pending.next];
    if (!pending || !expected) {
      this.violation("a result frame arrived while no item was running");
      return;
    }
    const parsed = resultFrameSchema.safeParse(message);
    if (!parsed.success || parsed.data.id !== expected.id || parsed.data.nonce !== expected.nonce) {
      this.violation("a result frame did not match the item in flight (forged or corrupt)");
      return;
    }
    const frame = parsed.data;
    // A retiring runner exits by itself after this frame: the rest of the batch, and any batch
    // queued behind it, go to another runner (set before completing, so nothing more is sent).
    if (frame.retire) {
      this.alive = false;
      this.scheduleExitKill(); // it exits by itself; if user code holds it up, it is killed
    }
    // "Retired before this item" is not a result: the item never ran, so it stays unanswered
    // and goes to a fresh runner with the rest (whatever the timing, it is never reported).
    if (!(frame.retire && isRetiredBeforeItem(frame))) this.complete(this.buildResult(frame, pending.itemStartedAt));
    if (frame.retire && this.pending === pending) pending.done();
  }

  private buildResult(frame: z.infer<typeof resultFrameSchema>, startedAt: number): ItemResult {
    const { outputBytes } = this.options.limits;
    let outcome: Outcome = frame.outcome;
    let error: ItemError | undefined = frame.error ?? undefined;
    let scores: ItemResult["scores"] = [];
    // The runner caps output itself; check again, since the frame is only as honest as the runner.
    let stdout = frame.stdout;
    let stderr = frame.stderr;
    let overflow = false;
    if (stdout.length + stderr.length > outputBytes / 4) {
      const out = new Capped(outputBytes);
      out.push(Buffer.from(stdout, "utf8"));
      const err = new Capped(Math.max(outputBytes - out.size, 0));
      err.push(Buffer.from(stderr, "utf8"));
      overflow = out.exceeded || err.exceeded;
      stdout = out.text();
      stderr = err.text();
    }
    if (outcome === "ok") {
      const validated = validateScores(frame.scores);
      if (validated.ok) scores = validated.scores;
      else {
        outcome = "invalid_result";
        error = { type: "InvalidResult", message: validated.message, traceback: "" };
      }
    }
    if (overflow && outcome === "ok") {
      outcome = "output_limit";
      scores = [];
      error = { type: "OutputLimit", message: `the item printed more than ${outputBytes} bytes`, traceback: "" };
    }
    if (outcome !== "ok" && !error) error = { type: outcome, message: outcome, traceback: "" };
    return finish(outcome, scores, stdout, stderr, error, startedAt);
  }

  private violation(reason: string): void {
    this.options.logger.warn({ workspaceId: this.workspaceId, reason }, "sandbox result channel violation");
    const pending = this.pending;
    this.kill("violation");
    if (this.setupWaiter) this.setupWaiter(undefined);
    if (pending) this.failInFlight(pending, finish("invalid_result", [], "", "", { type: "InvalidResult", message: reason, traceback: "" }, pending.itemStartedAt));
  }

  /**
   * The runner died or broke the protocol during a batch. Results are buffered inside the runner,
   * so only when exactly one item is unanswered is it known to be the cause: it gets `result`.
   * Otherwise every unanswered item is left undefined and `died` tells the caller to re-run them
   * one per batch, where the cause shows itself.
   */
  private failInFlight(pending: Pending, result: ItemResult): void {
    this.died = true;
    if (pending.items.length - pending.next === 1) this.complete(result);
    pending.done();
  }

  private onExit(exitCode: number | undefined, signal: string | undefined): void {
    this.alive = false;
    this.exited = true;
    // Every process of the sandbox is gone with bwrap (PID namespace), and with them the mount
    // namespace holding its /tmp: free the box.
    this.box?.release();
    this.released = Promise.resolve();
    this.stopIdleWatch();
    if (this.exitTimer) clearTimeout(this.exitTimer);
    this.exitInfo = { exitCode, signal };
    if (this.setupWaiter) this.setupWaiter(undefined);
    const pending = this.pending;
    if (!pending) return;
    const diagnostics = this.diagnostics.text();
    if (diagnostics) this.options.logger.warn({ workspaceId: this.workspaceId, diagnostics: diagnostics.slice(-2000) }, "sandbox runner output");
    const { limits } = this.options;
    let outcome: Outcome;
    let error: ItemError;
    if (this.killReason === "wall") {
      outcome = "timeout";
      error = { type: "ItemTimeout", message: `the evaluator did not finish within ${limits.wallTimeMs / 1000} s (wall clock)`, traceback: "" };
    } else if (exitCode === SIGXCPU_EXIT || signal === "SIGXCPU") {
      outcome = "timeout";
      error = { type: "ItemTimeout", message: `the evaluator used more than its CPU time of ${limits.cpuTimeMs / 1000} s`, traceback: "" };
    } else {
      // The runner was executing user code: whatever ended it was the evaluator's doing.
      outcome = "user_error";
      const how = exitCode !== undefined && exitCode > 128 ? `signal ${exitCode - 128}` : `exit code ${exitCode ?? "?"}`;
      error = { type: "ProcessEnded", message: `the evaluator ended its sandbox process (${how})`, traceback: "" };
    }
    this.failInFlight(pending, finish(outcome, [], "", "", error, pending.itemStartedAt));
  }
}

/**
 * True for the frame runner.py sends in place of an item it did not run because the runner had
 * used its lifetime CPU (`RunnerRetired`): the item must run elsewhere, not be given that outcome.
 */
function isRetiredBeforeItem(frame: z.infer<typeof resultFrameSchema>): boolean {
  return frame.outcome === "sandbox_error" && frame.error?.type === "RunnerRetired";
}

/**
 * Starts bwrap (through box_launch.py for a root worker that may mount: box-launch.ts). bwrap
 * itself gets an empty environment: with --clearenv alone, bwrap's own PID 1 would keep the
 * worker's variables (readable through /proc/1/environ if /proc were mounted).
 */
function spawnSandbox(paths: SandboxPaths, limits: Readonly<Limits>, seccompProgram: Uint8Array, box: Box | undefined, mounts: boolean) {
  const command = sandboxCommand(paths, limits, SECCOMP_FD, box, mounts);
  return execa(command.file, command.args, {
    env: {},
    extendEnv: false,
    // Its own unprivileged host uid (box-uids.ts): bwrap then makes an unprivileged user namespace.
    ...(command.uid !== undefined ? { uid: command.uid, gid: command.uid } : {}),
    // fd 3: results; fd 4: the BPF program, written by execa into a pipe that bwrap reads to EOF.
    stdio: ["pipe", "pipe", "pipe", "pipe", seccompProgram],
    buffer: false,
    reject: false,
    killSignal: "SIGKILL",
    cleanup: true,
    stripFinalNewline: false,
  });
}

/** Host pids of `root` and every process under it (one scan of /proc: there is no children file here). */
function sandboxPids(root: number | undefined): number[] {
  if (root === undefined) return [];
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [root];
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ", 2)[1]);
      const list = children.get(ppid);
      if (list) list.push(Number(entry));
      else children.set(ppid, [Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i]!) ?? []));
  return found;
}

/** Threads of the given processes (`Threads:` of /proc/<pid>/status); a process that is gone counts 0. */
function threadCount(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const match = /^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
      total += match ? Number(match[1]) : 1;
    } catch {
      // gone
    }
  }
  return total;
}

/** utime + stime (clock ticks, every thread) of the given processes; a process that is gone counts 0. */
function cpuTicks(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return total;
}

function finish(
  outcome: Outcome,
  scores: ItemResult["scores"],
  stdout: string,
  stderr: string,
  error: ItemError | undefined,
  startedAt: number,
): ItemResult {
  const result: ItemResult = { outcome, scores, stdout, stderr, durationMs: Math.round((performance.now() - startedAt) * 100) / 100 };
  if (error) result.error = error;
  return result;
}
