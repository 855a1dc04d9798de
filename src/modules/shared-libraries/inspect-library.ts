import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

/** The sandbox's interpreter: a library is parsed by the same Python that will run it. */
export const SANDBOX_PYTHON = "/usr/bin/python3.11";

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../python-lib/scripts/inspect_library.py");
const TIMEOUT_MS = 5_000;
const MAX_BUFFER = 1024 * 1024;

/** What a publish needs to know of a library's source, found without running it. */
export type LibraryInspection =
  | { ok: true; imports: string[] }
  | { ok: false; error: { message: string; line: number | null; column: number | null } };

/** Inspects a library source without running it (replaceable in tests). */
export type LibraryInspector = (source: string) => Promise<LibraryInspection>;

/**
 * Parses a library source with the sandbox's Python (`ast` only, never `exec`):
 * python-lib/scripts/inspect_library.py, isolated (`-I -S -B`), with an empty environment, the
 * source on stdin, a 5 s timeout and a bounded output.
 * @returns the shared libraries it imports, or the syntax error with its line and column.
 * @throws Error when the interpreter fails or answers something unexpected (a server fault).
 */
export const inspectLibrary: LibraryInspector = async (source) => {
  const result = await execa(SANDBOX_PYTHON, ["-I", "-S", "-B", SCRIPT], {
    input: source,
    env: {},
    extendEnv: false,
    timeout: TIMEOUT_MS,
    maxBuffer: MAX_BUFFER,
    reject: false,
    stripFinalNewline: true,
  });
  if (result.exitCode !== 0 || result.timedOut) {
    throw new Error(`inspect_library.py failed (exit ${result.exitCode}, timed out: ${result.timedOut}): ${String(result.stderr).slice(0, 500)}`);
  }
  const parsed = JSON.parse(String(result.stdout)) as LibraryInspection;
  if (typeof parsed !== "object" || parsed === null || typeof parsed.ok !== "boolean") {
    throw new Error(`inspect_library.py answered something unexpected: ${String(result.stdout).slice(0, 200)}`);
  }
  return parsed;
};
