import { inspectPython, type SourceError } from "../../lib/inspect-python.js";

/** What a publish needs to know of a library's source, found without running it. */
export type LibraryInspection = { ok: true; imports: string[] } | { ok: false; error: SourceError };

/** Inspects a library source without running it (replaceable in tests). */
/** `workspaceId`: whose turn of the shared inspector it takes (src/lib/inspect-python.ts). */
export type LibraryInspector = (source: string, workspaceId?: string) => Promise<LibraryInspection>;

/**
 * Parses a library source with the sandbox's Python (`ast` only, never `exec`; see
 * {@link inspectPython}). @returns the shared libraries it imports, or the syntax error with its
 * line and column. @throws Error when the interpreter fails (a server fault).
 */
export const inspectLibrary: LibraryInspector = (source, workspaceId) => inspectPython<LibraryInspection>(source, "library", workspaceId);
