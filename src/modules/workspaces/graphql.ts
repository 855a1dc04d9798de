import { builder } from "../../graphql/builder.js";
import { NotFoundError } from "../../lib/errors.js";
import { NIL_UUID, isUuid, uuidOrNil } from "../../lib/uuid.js";
import { apiKeyNameSchema } from "./schemas.js";

/** Only the caller's workspace is ever resolvable: another id reads as absent (no existence leak). */
export const WorkspaceRef = builder.prismaNode("Workspace", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: id === ctx.principal.workspaceId ? id : NIL_UUID }),
  fields: (t) => ({
    name: t.exposeString("name"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    apiKeys: t.relatedConnection("apiKeys", { cursor: "id", query: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } }),
  }),
});

/** An API key of the caller's workspace (never its secret); a malformed id reads as absent. */
export const ApiKeyRef = builder.prismaNode("ApiKey", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "An API key of the workspace. The secret is shown only when the key is created.",
  fields: (t) => ({
    name: t.exposeString("name"),
    prefix: t.exposeString("prefix", { description: "The first characters of the secret, to tell keys apart." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true }),
    revoked: t.boolean({ resolve: (key) => key.revokedAt !== null }),
  }),
});

const Viewer = builder.objectRef<{ workspaceId: string; apiKeyId: string }>("Viewer").implement({
  description: "The caller: the workspace and API key of the request.",
  fields: (t) => ({
    workspace: t.prismaField({
      type: "Workspace",
      resolve: (query, viewer, _args, ctx) => ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { id: viewer.workspaceId } }),
    }),
    apiKey: t.prismaField({
      type: "ApiKey",
      resolve: (query, viewer, _args, ctx) => ctx.prisma.apiKey.findUniqueOrThrow({ ...query, where: { id: viewer.apiKeyId } }),
    }),
  }),
});

builder.queryField("viewer", (t) => t.field({ type: Viewer, resolve: (_root, _args, ctx) => ctx.principal }));

builder.relayMutationField(
  "createApiKey",
  { inputFields: (t) => ({ name: t.string({ required: true, validate: apiKeyNameSchema }) }) },
  {
    resolve: async (_root, { input }, ctx) => ctx.services.workspaces.createApiKey(ctx.principal.workspaceId, input.name),
  },
  {
    outputFields: (t) => ({
      apiKey: t.prismaField({
        type: "ApiKey",
        resolve: (query, payload, _args, ctx) => ctx.prisma.apiKey.findUniqueOrThrow({ ...query, where: { id: payload.apiKey.id } }),
      }),
      secret: t.string({ description: "The key's secret. Shown once: store it now.", resolve: (payload) => payload.secret }),
    }),
  },
);

builder.relayMutationField(
  "revokeApiKey",
  { inputFields: (t) => ({ id: t.globalID({ required: true, for: ApiKeyRef }) }) },
  {
    resolve: async (_root, { input }, ctx) => {
      const id = input.id.id;
      if (!isUuid(id)) throw new NotFoundError("API key", String(input.id.id));
      return ctx.services.workspaces.revokeApiKey(ctx.principal.workspaceId, id);
    },
  },
  {
    outputFields: (t) => ({
      apiKey: t.prismaField({
        type: "ApiKey",
        resolve: (query, key, _args, ctx) => ctx.prisma.apiKey.findUniqueOrThrow({ ...query, where: { id: key.id } }),
      }),
    }),
  },
);
