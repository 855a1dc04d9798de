import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { createFairQueue, type FairQueue } from "./fair-queue.js";

/** The sandbox's interpreter: a source is parsed by the same Python that will run it. */
export const SANDBOX_PYTHON = "/usr/bin/python3.11";

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../python-lib/oodle_eval/inspect_source.py");
const TIMEOUT_MS = 5_000;
const MAX_BUFFER = 1024 * 1024;
/** Inspections running at once (each may use up to 512 MiB and 4 s of CPU: its own rlimits). */
export const MAX_CONCURRENT_INSPECTIONS = 2;
/**
 * Bytes of source being parsed at once, over every inspection of the process: the parser's memory
 * grows with its input (~300 MiB for a 256 KiB source of tiny statements), so two large sources
 * never parse side by side; small ones still run {@link MAX_CONCURRENT_INSPECTIONS} at a time.
 */
export const MAX_INSPECTION_BYTES_IN_FLIGHT = 256 * 1024;
/**
 * Sources of at most this size (bytes) parse in any free slot, beside a large one: a one-liner
 * never waits for another workspace's 256 KiB source (memory: 256 KiB + 2 × 16 KiB of source).
 */
export const SMALL_INSPECTION_BYTES = 16 * 1024;
/** Inspections one workspace may have waiting; more are refused (LIMIT_EXCEEDED with a retry time). */
export const MAX_QUEUED_INSPECTIONS_PER_WORKSPACE = 16;
/** Inspections waiting over every workspace; more are refused. */
export const MAX_QUEUED_INSPECTIONS = 256;

/** The owner of inspections no workspace asked for (start-up checks, tools). */
export const SERVICE_OWNER = "(service)";

/**
 * The process's inspection queue: shared fairly between workspaces (round-robin, src/lib/fair-queue.ts),
 * {@link MAX_CONCURRENT_INSPECTIONS} at once within {@link MAX_INSPECTION_BYTES_IN_FLIGHT}, bounded per
 * workspace and in all. One per process: the interpreters it starts are this host's.
 */
export const inspectionQueue: FairQueue = createFairQueue({
  concurrency: MAX_CONCURRENT_INSPECTIONS,
  maxBytesInFlight: MAX_INSPECTION_BYTES_IN_FLIGHT,
  smallTaskBytes: SMALL_INSPECTION_BYTES,
  maxQueuedPerOwner: MAX_QUEUED_INSPECTIONS_PER_WORKSPACE,
  maxQueued: MAX_QUEUED_INSPECTIONS,
  what: "source inspections (validateTemplate, tryCode, template and library saves)",
});

/** Signals with which the inspector ends when the source itself is too much (C stack, CPU, memory). */
const SOURCE_FAULT_SIGNALS = new Set(["SIGSEGV", "SIGXCPU", "SIGKILL", "SIGABRT", "SIGBUS"]);

/** A syntax error or a refused shape, with its position in the source (1-based; null when unknown). */
export interface SourceError {
  message: string;
  line: number | null;
  column: number | null;
}

/** ` (line 3, column 5)` to append to a {@link SourceError} message, or "" when the line is unknown. */
export function formatPosition(line: number | null, column: number | null): string {
  if (line === null) return "";
  return column === null ? ` (line ${line})` : ` (line ${line}, column ${column})`;
}

/**
 * Parses Python source with the sandbox's Python without running it: python-lib's
 * oodle_eval/inspect_source.py (`ast` only, never `exec`), isolated (`-I -S -B`), with an empty
 * environment, the source on stdin, a 5 s timeout and a 1 MiB bound on its answer; under its own
 * rlimits (512 MiB, 4 s CPU), in `owner`'s turn of the {@link inspectionQueue} (fair between
 * workspaces, bounded; at most {@link MAX_CONCURRENT_INSPECTIONS} at once and
 * {@link MAX_INSPECTION_BYTES_IN_FLIGHT} bytes of source being parsed). A source too
 * deep or too large to parse (RecursionError, MemoryError, a crash or the CPU limit) is the
 * user's: `{ok: false, error}` saying so.
 * @param mode - "template" (entry point + shared imports) or "library" (imports only).
 * @param owner - whose turn it takes: the workspace id of the request ({@link SERVICE_OWNER} by default).
 * @returns the script's JSON answer: `{ok: true, ...}` or `{ok: false, error: SourceError}`.
 * @throws RateLimitedError (LIMIT_EXCEEDED, retryAfterSeconds) when the owner's queue is full.
 * @throws Error when the interpreter fails or answers something unexpected (a server fault).
 */
export async function inspectPython<T extends { ok: boolean }>(source: string, mode: "template" | "library", owner: string = SERVICE_OWNER, queue: FairQueue = inspectionQueue): Promise<T> {
  const args = ["-I", "-S", "-B", SCRIPT, ...(mode === "library" ? ["--library"] : [])];
  const result = await queue.run(owner, Buffer.byteLength(source, "utf8"), () => execa(SANDBOX_PYTHON, args, {
    input: source,
    env: {},
    extendEnv: false,
    timeout: TIMEOUT_MS,
    maxBuffer: MAX_BUFFER,
    reject: false,
    stripFinalNewline: true,
  }), mode);
  if (result.timedOut || (result.signal && SOURCE_FAULT_SIGNALS.has(result.signal))) {
    const error: SourceError = { message: "the source is too large or nested too deeply to inspect (the parser ran out of time or stack); split it up", line: null, column: null };
    return { ok: false, error } as unknown as T;
  }
  if (result.exitCode !== 0 || result.timedOut) {
    throw new Error(`inspect_source.py failed (exit ${result.exitCode}, timed out: ${result.timedOut}): ${String(result.stderr).slice(0, 500)}`);
  }
  const parsed = JSON.parse(String(result.stdout)) as T;
  if (typeof parsed !== "object" || parsed === null || typeof parsed.ok !== "boolean") {
    throw new Error(`inspect_source.py answered something unexpected: ${String(result.stdout).slice(0, 200)}`);
  }
  return parsed;
}
