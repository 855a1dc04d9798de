import type { Prisma } from "../../generated/prisma/client.js";
import type { InputIssue } from "../../lib/errors.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { isLibraryName } from "./schemas.js";

/** A Prisma client or a transaction client: the functions here run inside a caller's transaction too. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** One library version as the sandbox runner receives it (`ExecuteKey.libraries`). */
export interface ResolvedLibrary {
  /** The version number used. */
  version: number;
  /** Its Python source. */
  source: string;
}

/** The libraries a run gets, and the versions to record on the run. */
export interface ResolvedLibraries {
  /** Library name → version and source, for `ExecuteKey.libraries` (sorted by name). */
  libraries: Record<string, ResolvedLibrary>;
  /** Library name → version number, to record on the run and show on the template version. */
  versions: Record<string, number>;
}

/** Options of {@link validateImportsAndPins}. */
export interface ValidateOptions {
  /**
   * Take a `FOR SHARE` lock on the libraries found, until the caller's transaction ends (pass a
   * transaction client as `db`). A template save that locks its pinned libraries this way and
   * `deleteSharedLibrary` (which locks the library `FOR UPDATE` before it looks for pins) cannot
   * pass each other: the library is never deleted under a pin that was just validated.
   */
  lock?: boolean;
}

function unique(names: Iterable<string>): string[] {
  return [...new Set(names)];
}

/** `name` and `latestVersion` of the workspace's libraries among `names` (0 = never published). */
async function latestVersions(db: Db, workspaceId: string, names: string[], lock: boolean): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const rows = lock
    ? await db.$queryRaw<{ name: string; latestVersion: number }[]>`
        SELECT name, "latestVersion" FROM "SharedLibrary"
        WHERE "workspaceId" = ${workspaceId}::uuid AND name = ANY(${names}::text[])
        ORDER BY name FOR SHARE`
    : await db.sharedLibrary.findMany({ where: { workspaceId, name: { in: names } }, select: { name: true, latestVersion: true } });
  return new Map(rows.filter((r) => r.latestVersion >= 1).map((r) => [r.name, r.latestVersion]));
}

/**
 * The save-time checks of a template version's shared libraries (docs/sandbox.md § Checked on save), without running
 * anything:
 *
 * - every library the source imports (`shared.X`, found with `ast`) exists in the workspace,
 *   else an issue at `sourceCode` naming X;
 * - every pin names an existing library and one of its versions, else an issue at
 *   `libraryPins.<name>`. A pin may name a library the source does not import directly: it then
 *   applies to the libraries' own imports (see {@link resolveLibraries}).
 *
 * A deprecated library is still valid. Pins should first be parsed with `parseLibraryPins`
 * (schemas.ts); a malformed pin value found here is reported too.
 * @param db the Prisma client, or the transaction that saves the template version.
 * @param imports the names X of the `shared.X` the source imports.
 * @param pins library name → version number.
 * @returns the issues; empty when the imports and pins are valid.
 */
export async function validateImportsAndPins(
  db: Db,
  workspaceId: string,
  imports: readonly string[],
  pins: Readonly<Record<string, number>>,
  options: ValidateOptions = {},
): Promise<InputIssue[]> {
  const names = unique([...imports, ...Object.keys(pins)]).filter(isLibraryName);
  const latest = await latestVersions(db, workspaceId, names, options.lock ?? false);
  const issues: InputIssue[] = [];
  for (const name of unique(imports)) {
    if (!latest.has(name)) {
      issues.push({ path: "sourceCode", message: `imports shared.${name}, but this workspace has no shared library "${name}": publish it first` });
    }
  }
  for (const [name, version] of Object.entries(pins)) {
    const path = `libraryPins.${name}`;
    const newest = latest.get(name);
    if (!isLibraryName(name)) issues.push({ path, message: "is not a shared library name (lower-case letters, digits and underscores)" });
    else if (typeof version !== "number" || !Number.isInteger(version) || version < 1) issues.push({ path, message: "must be a version number (a whole number, 1 or more)" });
    else if (newest === undefined) issues.push({ path, message: `pins shared library "${name}", which does not exist in this workspace` });
    else if (version > newest) issues.push({ path, message: `pins version ${version} of shared library "${name}", which does not exist (its latest version is ${newest})` });
  }
  return issues;
}

/**
 * The shared libraries a run of a template version gets: its direct imports and, transitively,
 * the libraries those import (stored on each library version), each at the version the template
 * pins, else at the library's latest version **now** — so publishing a version makes the next
 * run of every unpinned importer use it.
 *
 * A library that does not exist (or a pin to a version that does not exist) is left out: the
 * sandbox then raises ImportError naming it when the code imports it. Each library is resolved
 * once, so an import cycle ends the walk; the sandbox reports the cycle at import time.
 * @param db the Prisma client (or a transaction).
 * @param directImports the names X of the `shared.X` the template's source imports.
 * @param pins the template version's pins: library name → version number.
 * @returns the libraries for `ExecuteKey.libraries` and the versions to record on the run.
 */
export async function resolveLibraries(
  db: Db,
  workspaceId: string,
  directImports: readonly string[],
  pins: Readonly<Record<string, number>>,
): Promise<ResolvedLibraries> {
  const found = new Map<string, ResolvedLibrary>();
  const seen = new Set<string>();
  let frontier = unique(directImports).filter(isLibraryName);
  while (frontier.length > 0) {
    for (const name of frontier) seen.add(name);
    const libraries = await db.sharedLibrary.findMany({
      where: { workspaceId, name: { in: frontier } },
      select: { id: true, name: true, latestVersion: true },
    });
    const wanted = libraries
      .map((library) => ({ libraryId: library.id, version: Object.hasOwn(pins, library.name) ? pins[library.name]! : library.latestVersion }))
      .filter((w) => Number.isInteger(w.version) && w.version >= 1);
    const rows = wanted.length
      ? await db.sharedLibraryVersion.findMany({ where: { OR: wanted }, select: { libraryId: true, version: true, sourceCode: true, imports: true } })
      : [];
    const nameOf = new Map(libraries.map((l) => [l.id, l.name]));
    const next: string[] = [];
    for (const row of rows) {
      found.set(nameOf.get(row.libraryId)!, { version: row.version, source: row.sourceCode });
      for (const name of row.imports) if (!seen.has(name) && isLibraryName(name)) next.push(name);
    }
    frontier = unique(next);
  }
  const names = [...found.keys()].sort();
  return {
    libraries: Object.fromEntries(names.map((n) => [n, found.get(n)!])),
    versions: Object.fromEntries(names.map((n) => [n, found.get(n)!.version])),
  };
}
