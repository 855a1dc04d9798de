import type { SharedLibrary, SharedLibraryVersion } from "../../generated/prisma/client.js";
import { BadUserInputError, ConflictError, NotFoundError, type InputIssue } from "../../lib/errors.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { formatPosition } from "../../lib/inspect-python.js";
import { parseIssues } from "../../lib/validation.js";
import { requireLookupName } from "../../lib/id-or-name.js";
import { authorKeyOf, type Principal } from "../../lib/principal.js";
import { unifiedDiff } from "./diff.js";
import { inspectLibrary, type LibraryInspector } from "./inspect-library.js";
import { resolveLibraries, validateImportsAndPins, type Db, type ResolvedLibraries, type ValidateOptions } from "./resolve.js";
import { MAX_LIBRARY_SOURCE_BYTES, deprecateInputSchema, isLibraryName, publishInputSchema } from "./schemas.js";

/** A library and one of its versions (the result of a publish). */
export interface PublishedVersion {
  library: SharedLibrary;
  version: SharedLibraryVersion;
}

/** The diff between two versions of a library. */
export interface LibraryDiff {
  /** The library's name. */
  name: string;
  /** The older side of the diff (the `---` file). */
  from: number;
  /** The newer side (the `+++` file). */
  to: number;
  /** The unified diff; "" when both versions have the same source. */
  unified: string;
  /** Lines added from `from` to `to`. */
  added: number;
  /** Lines removed. */
  removed: number;
}

/** A live template with versions that pin a library: why it cannot be deleted. */
export interface PinningTemplate {
  /** The template's name. */
  template: string;
  /** Its id (a UUID). */
  id: string;
  /** The versions that pin the library. */
  versions: number[];
  /** The library versions they pin, in the same order. */
  pinnedVersions: number[];
}

/**
 * Shared libraries: versioned Python modules of a workspace that templates import as
 * `shared.<name>` (docs/sandbox.md § What the code can use). Versions are immutable; the library row holds the name, the
 * description, the latest version number and the deprecation. Every read and write is scoped to
 * the caller's workspace: another workspace's library is NOT_FOUND.
 */
export function createSharedLibraryService(deps: { prisma: PrismaClient; logger: Logger; inspectLibrary?: LibraryInspector }) {
  const { prisma, logger } = deps;
  const inspector = deps.inspectLibrary ?? inspectLibrary;

  /** The library of the workspace named `name`. @throws NotFoundError */
  async function getLibrary(workspaceId: string, name: string): Promise<SharedLibrary> {
    requireLookupName(name, "name");
    const library = isLibraryName(name) ? await prisma.sharedLibrary.findUnique({ where: { workspaceId_name: { workspaceId, name } } }) : null;
    if (!library) throw new NotFoundError("shared library", name);
    return library;
  }

  /** One version of a library of the workspace. @throws NotFoundError for the library or the version. */
  async function getVersion(workspaceId: string, name: string, version: number): Promise<SharedLibraryVersion> {
    const library = await getLibrary(workspaceId, name);
    const found = Number.isInteger(version)
      ? await prisma.sharedLibraryVersion.findUnique({ where: { libraryId_version: { libraryId: library.id, version } } })
      : null;
    if (!found) throw new NotFoundError("shared library version", `${name}@${version}`);
    return found;
  }

  /**
   * The live templates of the workspace with a version that pins `name` (raw SQL: the JSONB
   * `?` operator on TemplateVersion.libraryPins), by template name.
   */
  async function pinningTemplates(db: Db, workspaceId: string, name: string): Promise<PinningTemplate[]> {
    const rows = await db.$queryRaw<{ id: string; name: string; versions: number[]; pinned: number[] }[]>`
      SELECT t.id, t.name,
             array_agg(tv.version ORDER BY tv.version) AS versions,
             array_agg((tv."libraryPins" ->> ${name})::int ORDER BY tv.version) AS pinned
      FROM "TemplateVersion" tv JOIN "Template" t ON t.id = tv."templateId"
      WHERE t."workspaceId" = ${workspaceId}::uuid AND t."deletedAt" IS NULL AND jsonb_exists(tv."libraryPins", ${name})
      GROUP BY t.id, t.name
      ORDER BY t.name, t.id`;
    return rows.map((r) => ({ template: r.name, id: r.id, versions: r.versions.map(Number), pinnedVersions: r.pinned.map(Number) }));
  }

  return {
    /**
     * Publishes version N+1 of a library (version 1 creates the library). The source is parsed
     * with the sandbox's Python (`ast`, never run): a syntax error is refused with its line and
     * column; every shared library it imports must exist (refused naming it), and it may not
     * import itself. Cycles between libraries are not refused here, since pins decide whether
     * one exists: the sandbox reports them at import time. Publishing does not change a
     * deprecation.
     * @throws BadUserInputError listing every violation (paths `name`, `sourceCode`, `note`, `description`).
     */
    async publishVersion(principal: Principal, input: unknown): Promise<PublishedVersion> {
      const { data, issues } = parseIssues(publishInputSchema, input);
      const source = (input as { sourceCode?: unknown } | null)?.sourceCode;
      let imports: string[] = [];
      if (typeof source === "string" && source.trim() !== "" && Buffer.byteLength(source, "utf8") <= MAX_LIBRARY_SOURCE_BYTES) {
        const inspection = await inspector(source, principal.workspaceId);
        if (!inspection.ok) {
          const { message, line, column } = inspection.error;
          issues.push({ path: "sourceCode", message: message + formatPosition(line, column) });
        } else {
          imports = inspection.imports;
          const self = data?.name;
          if (self && imports.includes(self)) issues.push({ path: "sourceCode", message: `a shared library cannot import itself (shared.${self})` });
          const others = imports.filter((name) => name !== self);
          issues.push(...(await validateImportsAndPins(prisma, principal.workspaceId, others, {})));
        }
      }
      if (issues.length || !data) throw new BadUserInputError(issues);
      const { name, description } = data;
      const published = await prisma.$transaction(async (tx) => {
        await tx.sharedLibrary.createMany({ data: [{ workspaceId: principal.workspaceId, name, description: description ?? "" }], skipDuplicates: true });
        // The increment locks the row until commit: concurrent publishes get N+1, N+2, ...
        const library = await tx.sharedLibrary.update({
          where: { workspaceId_name: { workspaceId: principal.workspaceId, name } },
          data: { latestVersion: { increment: 1 }, ...(description !== undefined ? { description } : {}) },
        });
        const version = await tx.sharedLibraryVersion.create({
          data: {
            libraryId: library.id,
            version: library.latestVersion,
            sourceCode: data.sourceCode,
            note: data.note ?? "",
            imports,
            authorApiKeyId: authorKeyOf(principal),
          },
        });
        return { library, version };
      });
      logger.info({ workspaceId: principal.workspaceId, library: name, version: published.version.version }, "shared library version published");
      return published;
    },

    getLibrary,
    getVersion,

    /** The library of the workspace named `name`, or null (a foreign or malformed name reads as absent). */
    async findLibrary(workspaceId: string, name: string): Promise<SharedLibrary | null> {
      if (!isLibraryName(requireLookupName(name, "name"))) return null;
      return prisma.sharedLibrary.findUnique({ where: { workspaceId_name: { workspaceId, name } } });
    },

    /** Every version of a library, newest first. @throws NotFoundError */
    async listVersions(workspaceId: string, name: string): Promise<SharedLibraryVersion[]> {
      const library = await getLibrary(workspaceId, name);
      return prisma.sharedLibraryVersion.findMany({ where: { libraryId: library.id }, orderBy: { version: "desc" } });
    },

    /**
     * The unified diff from version `from` to version `to` of a library (3 lines of context,
     * headers `<name> v<from>` and `<name> v<to>`). Either order is allowed.
     * @throws NotFoundError for the library or either version.
     */
    async diffVersions(workspaceId: string, name: string, from: number, to: number): Promise<LibraryDiff> {
      const [a, b] = [await getVersion(workspaceId, name, from), await getVersion(workspaceId, name, to)];
      const diff = unifiedDiff(a.sourceCode, b.sourceCode, { from: `${name} v${from}`, to: `${name} v${to}` });
      return { name, from, to, unified: diff.text, added: diff.added, removed: diff.removed };
    },

    /**
     * Marks a library deprecated, with a note saying what to use instead; `deprecated: false`
     * lifts it. A deprecated library still resolves and runs; it is only a marker for people.
     * @throws BadUserInputError for a bad input; NotFoundError for an unknown library.
     */
    async deprecate(workspaceId: string, input: unknown): Promise<SharedLibrary> {
      const { data, issues } = parseIssues(deprecateInputSchema, input);
      if (issues.length || !data) throw new BadUserInputError(issues);
      const library = await getLibrary(workspaceId, data.name);
      const deprecated = data.deprecated ?? true;
      return prisma.sharedLibrary.update({
        where: { id: library.id },
        data: deprecated
          ? { deprecatedAt: library.deprecatedAt ?? new Date(), deprecationNote: data.note ?? library.deprecationNote ?? "" }
          : { deprecatedAt: null, deprecationNote: null },
      });
    },

    /**
     * Deletes a library and all its versions, unless a version of a live template pins it: then
     * CONFLICT (HTTP 409) naming the templates (`extensions.details`: {template, id, versions,
     * pinnedVersions}); deprecate it instead. Templates that import it without a pin do not
     * block: their next run gets an ImportError naming it. The library row is locked
     * `FOR UPDATE` before the pins are read (see `ValidateOptions.lock`).
     * @returns the deleted library's id and name.
     * @throws NotFoundError for an unknown library; ConflictError while pinned.
     */
    async deleteLibrary(workspaceId: string, name: string): Promise<{ id: string; name: string }> {
      if (!isLibraryName(requireLookupName(name, "name"))) throw new NotFoundError("shared library", name);
      return prisma.$transaction(async (tx) => {
        const locked = await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM "SharedLibrary" WHERE "workspaceId" = ${workspaceId}::uuid AND name = ${name} FOR UPDATE`;
        const id = locked[0]?.id;
        if (!id) throw new NotFoundError("shared library", name);
        const pinning = await pinningTemplates(tx, workspaceId, name);
        if (pinning.length) {
          const list = pinning.map((p) => `"${p.template}" (version${p.versions.length > 1 ? "s" : ""} ${p.versions.join(", ")})`).join(", ");
          throw new ConflictError(
            `shared library "${name}" is pinned by ${pinning.length} template(s): ${list}. Remove the pins (save new template versions without them) ` +
              "or deprecate the library instead.",
            pinning.map((p) => ({ recordType: "Template" as const, ...p })),
          );
        }
        await tx.sharedLibrary.delete({ where: { id } });
        logger.info({ workspaceId, library: name }, "shared library deleted");
        return { id, name };
      });
    },

    /** The live templates whose versions pin the library `name` (for display). */
    pinningTemplates: (workspaceId: string, name: string) => pinningTemplates(prisma, workspaceId, name),

    /**
     * Save-time checks of a template version's imports and pins: see {@link validateImportsAndPins}
     * in resolve.ts. Pass `db` (a transaction) with `lock: true` to hold the pinned libraries
     * until the save commits.
     * @returns the issues (paths `sourceCode` and `libraryPins.<name>`); empty when valid.
     */
    validateImportsAndPins(
      workspaceId: string,
      imports: readonly string[],
      pins: Readonly<Record<string, number>>,
      options: ValidateOptions & { db?: Db } = {},
    ): Promise<InputIssue[]> {
      return validateImportsAndPins(options.db ?? prisma, workspaceId, imports, pins, options);
    },

    /**
     * The libraries a run gets, transitively, each at its pinned version else the latest now:
     * see {@link resolveLibraries} in resolve.ts.
     */
    resolveLibraries(workspaceId: string, directImports: readonly string[], pins: Readonly<Record<string, number>>, db: Db = prisma): Promise<ResolvedLibraries> {
      return resolveLibraries(db, workspaceId, directImports, pins);
    },
  };
}

/** The shared-libraries service. */
export type SharedLibraryService = ReturnType<typeof createSharedLibraryService>;
