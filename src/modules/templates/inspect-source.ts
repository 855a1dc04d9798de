import type { EntryPointKind } from "../../lib/closed-lists.js";
import type { InputIssue } from "../../lib/errors.js";
import { formatPosition, inspectPython, type SourceError } from "../../lib/inspect-python.js";

/** Largest source accepted, in bytes of UTF-8 (256 KiB). */
export const MAX_SOURCE_BYTES = 256 * 1024;

/** The entry point found in a source: evaluate(ctx), Open Chat Studio's main(...), or an Opik BaseMetric class. */
export interface EntryPoint {
  kind: EntryPointKind;
  name: string;
  line: number;
}

/** What a save needs to know of a source, found without running it. */
export type SourceInspection =
  | {
      ok: true;
      entryPoint: EntryPoint;
      sharedLibraries: string[];
      /** Evaluator names read with a literal `ctx.score("Name", ...)`: inferred dependencies (absent from older inspectors: none). */
      scoreReads?: string[];
    }
  | { ok: false; error: SourceError };

/** Inspects a source without running it (replaceable in tests). */
/** `workspaceId`: whose turn of the shared inspector it takes (src/lib/inspect-python.ts). */
export type SourceInspector = (source: string, workspaceId?: string) => Promise<SourceInspection>;

/** Parses an evaluator's source with the sandbox's Python, `ast` only (see {@link inspectPython}). */
export const inspectSource: SourceInspector = (source, workspaceId) => inspectPython<SourceInspection>(source, "template", workspaceId);

/**
 * The code checks of a save: at most 256 KiB, not blank, parses, and defines an entry point of
 * the right shape. @returns the inspection, or the issues at path `sourceCode`.
 */
export async function checkSource(
  source: string,
  inspector: SourceInspector = inspectSource,
  field = "sourceCode",
  workspaceId?: string,
): Promise<{ inspection: Extract<SourceInspection, { ok: true }> | null; issues: InputIssue[] }> {
  const bytes = Buffer.byteLength(source, "utf8");
  if (bytes > MAX_SOURCE_BYTES) {
    return { inspection: null, issues: [{ path: field, message: `must be at most 256 KiB (${MAX_SOURCE_BYTES} bytes of UTF-8); got ${bytes} bytes` }] };
  }
  if (source.trim() === "") return { inspection: null, issues: [{ path: field, message: "must not be empty: define evaluate(ctx)" }] };
  const inspection = await inspector(source, workspaceId);
  if (!inspection.ok) {
    const { message, line, column } = inspection.error;
    return { inspection: null, issues: [{ path: field, message: message + formatPosition(line, column) }] };
  }
  return { inspection, issues: [] };
}
