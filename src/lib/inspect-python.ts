import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

/** The sandbox's interpreter: a source is parsed by the same Python that will run it. */
export const SANDBOX_PYTHON = "/usr/bin/python3.11";

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../python-lib/oodle_eval/inspect_source.py");
const TIMEOUT_MS = 5_000;
const MAX_BUFFER = 1024 * 1024;
/** Inspections running at once (each may use up to 512 MiB and 4 s of CPU: its own rlimits). */
export const MAX_CONCURRENT_INSPECTIONS = 2;

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `task` once fewer than {@link MAX_CONCURRENT_INSPECTIONS} inspections are running. */
async function limited<T>(task: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_INSPECTIONS) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

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
 * rlimits (512 MiB, 4 s CPU), at most {@link MAX_CONCURRENT_INSPECTIONS} at once. A source too
 * deep or too large to parse (RecursionError, MemoryError, a crash or the CPU limit) is the
 * user's: `{ok: false, error}` saying so.
 * @param mode - "template" (entry point + shared imports) or "library" (imports only).
 * @returns the script's JSON answer: `{ok: true, ...}` or `{ok: false, error: SourceError}`.
 * @throws Error when the interpreter fails or answers something unexpected (a server fault).
 */
export async function inspectPython<T extends { ok: boolean }>(source: string, mode: "template" | "library"): Promise<T> {
  const args = ["-I", "-S", "-B", SCRIPT, ...(mode === "library" ? ["--library"] : [])];
  const result = await limited(() => execa(SANDBOX_PYTHON, args, {
    input: source,
    env: {},
    extendEnv: false,
    timeout: TIMEOUT_MS,
    maxBuffer: MAX_BUFFER,
    reject: false,
    stripFinalNewline: true,
  }));
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
