import { encodeGlobalID } from "@pothos/plugin-relay";
import { builder } from "../../graphql/builder.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { NotFoundError } from "../../lib/errors.js";
import { uuidOrNil } from "../../lib/uuid.js";
import { deprecateInputSchema, publishInputSchema } from "./schemas.js";
import type { LibraryDiff, PinningTemplate } from "./service.js";

/** The diff between two versions of a shared library. */
const SharedLibraryDiffRef = builder.objectRef<LibraryDiff>("SharedLibraryDiff").implement({
  description: "The changes from one version of a shared library to another.",
  fields: (t) => ({
    from: t.exposeInt("from", { description: "The version on the --- side." }),
    to: t.exposeInt("to", { description: "The version on the +++ side." }),
    unified: t.exposeString("unified", { description: "A unified diff (3 lines of context); empty when the sources are equal." }),
    added: t.exposeInt("added", { description: "Lines added." }),
    removed: t.exposeInt("removed", { description: "Lines removed." }),
  }),
});

/** A template whose versions pin a shared library. */
const SharedLibraryPinRef = builder.objectRef<PinningTemplate>("SharedLibraryPin").implement({
  description: "A live template with versions that pin the library (they keep its deletion from happening).",
  fields: (t) => ({
    templateName: t.exposeString("template"),
    templateId: t.id({ description: "The template's global id.", resolve: (p) => encodeGlobalID("Template", p.id) }),
    templateVersions: t.exposeIntList("versions", { description: "The template versions that pin the library." }),
    pinnedVersions: t.exposeIntList("pinnedVersions", { description: "The library version each of them pins, in the same order." }),
  }),
});

/** A shared library of the caller's workspace (another workspace's id reads as absent). */
export const SharedLibraryRef = builder.prismaNode("SharedLibrary", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "A versioned Python module of the workspace that evaluators import as shared.<name>.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The module name: `from shared.<name> import ...`." }),
    description: t.exposeString("description"),
    latestVersionNumber: t.exposeInt("latestVersion", { description: "What an unpinned import gets now." }),
    latestVersion: t.prismaField({
      type: "SharedLibraryVersion",
      resolve: (query, library, _args, ctx) =>
        ctx.prisma.sharedLibraryVersion.findUniqueOrThrow({ ...query, where: { libraryId_version: { libraryId: library.id, version: library.latestVersion } } }),
    }),
    version: t.prismaField({
      type: "SharedLibraryVersion",
      nullable: true,
      description: "One version, or null when it does not exist.",
      args: { version: t.arg.int({ required: true }) },
      resolve: (query, library, args, ctx) =>
        ctx.prisma.sharedLibraryVersion.findUnique({ ...query, where: { libraryId_version: { libraryId: library.id, version: args.version } } }),
    }),
    versions: t.relatedConnection("versions", { cursor: "id", description: "Every version, newest first.", query: { orderBy: { version: "desc" } } }),
    diff: t.field({
      type: SharedLibraryDiffRef,
      description: "The unified diff from version `from` to version `to` (NOT_FOUND when either does not exist).",
      args: { from: t.arg.int({ required: true }), to: t.arg.int({ required: true }) },
      resolve: (library, args, ctx) => ctx.services.sharedLibraries.diffVersions(ctx.principal.workspaceId, library.name, args.from, args.to),
    }),
    deprecated: t.boolean({ resolve: (library) => library.deprecatedAt !== null }),
    deprecatedAt: t.expose("deprecatedAt", { type: "DateTime", nullable: true }),
    deprecationNote: t.exposeString("deprecationNote", { nullable: true, description: "Why, and what to use instead." }),
    pinnedBy: t.field({
      type: [SharedLibraryPinRef],
      description: "The live templates with versions that pin this library.",
      resolve: (library, _args, ctx) => ctx.services.sharedLibraries.pinningTemplates(ctx.principal.workspaceId, library.name),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

/** One immutable version of a shared library. */
export const SharedLibraryVersionRef = builder.prismaNode("SharedLibraryVersion", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), library: { workspaceId: ctx.principal.workspaceId } }),
  description: "One published version of a shared library; never changes.",
  fields: (t) => ({
    version: t.exposeInt("version"),
    sourceCode: t.exposeString("sourceCode"),
    note: t.exposeString("note", { description: "What changed." }),
    imports: t.exposeStringList("imports", { description: "The shared libraries this version imports." }),
    author: t.relation("authorApiKey", { nullable: true, description: "The API key that published it." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    library: t.relation("library"),
  }),
});

/** The filter of the `sharedLibraries` listing. */
function librariesWhere(workspaceId: string, includeDeprecated: boolean | null | undefined) {
  return { workspaceId, ...(includeDeprecated === false ? { deprecatedAt: null } : {}) };
}

builder.queryFields((t) => ({
  sharedLibraries: t.prismaConnection({
    type: "SharedLibrary",
    cursor: "id",
    description: "The workspace's shared libraries, by name.",
    args: { includeDeprecated: t.arg.boolean({ defaultValue: true, description: "false: leave deprecated libraries out." }) },
    totalCount: (_root, args, ctx) => ctx.prisma.sharedLibrary.count({ where: librariesWhere(ctx.principal.workspaceId, args.includeDeprecated) }),
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.sharedLibrary.findMany({ ...query, where: librariesWhere(ctx.principal.workspaceId, args.includeDeprecated), orderBy: [{ name: "asc" }, { id: "asc" }] }),
  }),
  sharedLibrary: t.prismaField({
    type: "SharedLibrary",
    description: "A shared library by name (NOT_FOUND when the workspace has none of that name).",
    args: { name: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const library = await ctx.services.sharedLibraries.findLibrary(ctx.principal.workspaceId, args.name);
      if (!library) throw new NotFoundError("shared library", args.name);
      return ctx.prisma.sharedLibrary.findUniqueOrThrow({ ...query, where: { id: library.id } });
    },
  }),
}));

const publishInput = describedBy(publishInputSchema);
const deprecateInput = describedBy(deprecateInputSchema);

builder.relayMutationField(
  "publishSharedLibraryVersion",
  {
    inputFields: (t) => ({
      name: t.string({ required: true, ...publishInput("name") }),
      sourceCode: t.string({ required: true, ...publishInput("sourceCode") }),
      note: t.string(publishInput("note")),
      description: t.string(publishInput("description")),
    }),
  },
  {
    resolve: (_root, { input }, ctx) =>
      ctx.services.sharedLibraries.publishVersion(ctx.principal, {
        name: input.name,
        sourceCode: input.sourceCode,
        note: input.note ?? undefined,
        description: input.description ?? undefined,
      }),
  },
  {
    outputFields: (t) => ({
      library: t.prismaField({
        type: "SharedLibrary",
        resolve: (query, payload, _args, ctx) => ctx.prisma.sharedLibrary.findUniqueOrThrow({ ...query, where: { id: payload.library.id } }),
      }),
      version: t.prismaField({
        type: "SharedLibraryVersion",
        description: "The version just published.",
        resolve: (query, payload, _args, ctx) => ctx.prisma.sharedLibraryVersion.findUniqueOrThrow({ ...query, where: { id: payload.version.id } }),
      }),
    }),
  },
);

builder.relayMutationField(
  "deprecateSharedLibrary",
  {
    inputFields: (t) => ({
      name: t.string({ required: true }),
      note: t.string(deprecateInput("note")),
      deprecated: t.boolean(deprecateInput("deprecated")),
    }),
  },
  {
    resolve: (_root, { input }, ctx) =>
      ctx.services.sharedLibraries.deprecate(ctx.principal.workspaceId, {
        name: input.name,
        note: input.note ?? undefined,
        deprecated: input.deprecated ?? undefined,
      }),
  },
  {
    outputFields: (t) => ({
      library: t.prismaField({
        type: "SharedLibrary",
        resolve: (query, library, _args, ctx) => ctx.prisma.sharedLibrary.findUniqueOrThrow({ ...query, where: { id: library.id } }),
      }),
    }),
  },
);

builder.relayMutationField(
  "deleteSharedLibrary",
  { inputFields: (t) => ({ name: t.string({ required: true }) }) },
  { resolve: (_root, { input }, ctx) => ctx.services.sharedLibraries.deleteLibrary(ctx.principal.workspaceId, input.name) },
  {
    outputFields: (t) => ({
      deletedId: t.id({ description: "The global id the library had.", resolve: (deleted) => encodeGlobalID("SharedLibrary", deleted.id) }),
      name: t.exposeString("name"),
    }),
  },
);
