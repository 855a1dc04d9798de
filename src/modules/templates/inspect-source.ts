import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import type { InputIssue } from "../../lib/errors.js";

/** The sandbox's interpreter: the code is parsed by the same Python that will run it. */
export const SANDBOX_PYTHON = "/usr/bin/python3.11";
/** Largest source accepted, in bytes of UTF-8 (256 KiB). */
export const MAX_SOURCE_BYTES = 256 * 1024;

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../python-lib/scripts/inspect_source.py");
const TIMEOUT_MS = 5_000;
const MAX_BUFFER = 1024 * 1024;

/** The entry point found in a source: evaluate(ctx), Open Chat Studio's main(...), or an Opik BaseMetric class. */
export interface EntryPoint {
  kind: "evaluate" | "main" | "opik";
  name: string;
  line: number;
}

/** What a save needs to know of a source, found without running it. */
export type SourceInspection =
  | { ok: true; entryPoint: EntryPoint; sharedLibraries: string[] }
  | { ok: false; error: { message: string; line: number | null; column: number | null } };

/** Inspects a source without running it (replaceable in tests). */
export type SourceInspector = (source: string) => Promise<SourceInspection>;

/**
 * Parses the source with the sandbox's Python (`ast` only, never `exec`): python-lib's
 * scripts/inspect_source.py, isolated (`-I -S -B`), with an empty environment, the source on
 * stdin, a 5 s timeout and a bounded output.
 * @throws Error when the interpreter fails or answers something unexpected (a server fault).
 */
export const inspectSource: SourceInspector = async (source) => {
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
    throw new Error(`inspect_source.py failed (exit ${result.exitCode}, timed out: ${result.timedOut}): ${String(result.stderr).slice(0, 500)}`);
  }
  return JSON.parse(String(result.stdout)) as SourceInspection;
};

/** ` (line 3, column 5)` to append to a message, or "" when the position is unknown. */
function position(line: number | null, column: number | null): string {
  if (line === null) return "";
  return column === null ? ` (line ${line})` : ` (line ${line}, column ${column})`;
}

/**
 * The code checks of a save: at most 256 KiB, not blank, parses, and defines an entry point of
 * the right shape. @returns the inspection, or the issues at path `sourceCode`.
 */
export async function checkSource(
  source: string,
  inspector: SourceInspector = inspectSource,
  field = "sourceCode",
): Promise<{ inspection: Extract<SourceInspection, { ok: true }> | null; issues: InputIssue[] }> {
  const bytes = Buffer.byteLength(source, "utf8");
  if (bytes > MAX_SOURCE_BYTES) {
    return { inspection: null, issues: [{ path: field, message: `must be at most 256 KiB (${MAX_SOURCE_BYTES} bytes of UTF-8); got ${bytes} bytes` }] };
  }
  if (source.trim() === "") return { inspection: null, issues: [{ path: field, message: "must not be empty: define evaluate(ctx)" }] };
  const inspection = await inspector(source);
  if (!inspection.ok) {
    const { message, line, column } = inspection.error;
    return { inspection: null, issues: [{ path: field, message: message + position(line, column) }] };
  }
  return { inspection, issues: [] };
}
