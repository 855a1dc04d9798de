import { builder } from "../../graphql/builder.js";
import { ConnectionErrorCodeEnum, ConnectionProviderEnum } from "../../graphql/enums.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import type { ConnectionErrorCode, ConnectionProvider } from "../../lib/closed-lists.js";
import { uuidOrNil } from "../../lib/uuid.js";
import { createConnectionInputSchema, testConnectionInputSchema, updateConnectionInputSchema } from "./schemas.js";
import type { Connection, ConnectionTestResult, ProviderFailure } from "./service.js";

// Thin adapters over the connections service: global ids are decoded here and the service gets
// raw ids. The type has no field of the key: only keyHint and keyId.

/** A connection of the caller's workspace (never its API key); a malformed or foreign id reads as absent. */
export const ProviderConnectionRef = builder.prismaNode("Connection", {
  name: "ProviderConnection",
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "A connection of the workspace to an LLM provider (docs/connections.md). Its API key is stored encrypted and never returned: keyHint shows its last 4 characters.",
  fields: (t) => ({
    name: t.exposeString("name"),
    provider: t.field({ type: ConnectionProviderEnum, resolve: (c) => c.provider as ConnectionProvider }),
    baseUrl: t.exposeString("baseUrl", { nullable: true, description: "The API's base URL; null: the provider's own (https://api.openai.com/v1, https://api.anthropic.com)." }),
    defaultModel: t.exposeString("defaultModel", { description: "The model used when a caller names none." }),
    maxConcurrentRequests: t.exposeInt("maxConcurrentRequests", { description: "Requests to the provider in flight at once over this connection." }),
    keyHint: t.exposeString("keyHint", { description: "The API key's last 4 characters (empty for a key shorter than 12 characters)." }),
    keyId: t.exposeString("keyId", { description: "The id of the service's encryption key (CONNECTION_KEYS) the API key is sealed with: after a rotation, every connection shows the new one." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const ConnectionTestError = builder.objectRef<ProviderFailure>("ConnectionTestError").implement({
  description: "Why a connection test failed. The message is the provider's (or the network's), with any echo of the key removed.",
  fields: (t) => ({
    code: t.field({ type: ConnectionErrorCodeEnum, resolve: (e) => e.code as ConnectionErrorCode }),
    message: t.exposeString("message"),
    status: t.exposeInt("status", { nullable: true, description: "The provider's HTTP status (null: no answer)." }),
    retryAfterSeconds: t.exposeInt("retryAfterSeconds", { nullable: true, description: "rate_limited: the provider's Retry-After, in seconds (null when it sent none)." }),
  }),
});

builder.queryFields((t) => ({
  connections: t.prismaConnection({
    type: "Connection",
    cursor: "id",
    description: "The workspace's connections to LLM providers, by name.",
    resolve: (query, _root, _args, ctx) => ctx.services.connections.listConnections(ctx.principal, query),
  }),
}));

const create = describedBy(createConnectionInputSchema);
const update = describedBy(updateConnectionInputSchema);

builder.relayMutationField(
  "createConnection",
  {
    description: "Creates a connection to an LLM provider. The API key is stored encrypted (AES-256-GCM under CONNECTION_KEYS) and never returned.",
    inputFields: (t) => ({
      name: t.string({ required: true, ...create("name") }),
      provider: t.field({ type: ConnectionProviderEnum, required: true, ...create("provider") }),
      baseUrl: t.string(create("baseUrl")),
      defaultModel: t.string({ required: true, ...create("defaultModel") }),
      maxConcurrentRequests: t.int(create("maxConcurrentRequests")),
      apiKey: t.string({ required: true, ...create("apiKey") }),
    }),
  },
  {
    resolve: async (_root, { input }, ctx) => {
      const { baseUrl, maxConcurrentRequests, ...rest } = input;
      return { connection: await ctx.services.connections.createConnection(ctx.principal, { ...rest, ...(baseUrl != null ? { baseUrl } : {}), ...(maxConcurrentRequests != null ? { maxConcurrentRequests } : {}) }) };
    },
  },
  { outputFields: (t) => ({ connection: t.prismaField({ type: "Connection", resolve: (query, p, _a, ctx) => ctx.prisma.connection.findUniqueOrThrow({ ...query, where: { id: p.connection.id } }) }) }) },
);

builder.relayMutationField(
  "updateConnection",
  {
    description: "Changes the given fields of a connection; apiKey replaces its key (sealed with the current encryption key); baseUrl null: the provider's own.",
    inputFields: (t) => ({
      id: t.globalID({ for: ProviderConnectionRef, required: true }),
      name: t.string(update("name")),
      provider: t.field({ type: ConnectionProviderEnum, ...update("provider") }),
      baseUrl: t.string(update("baseUrl")),
      defaultModel: t.string(update("defaultModel")),
      maxConcurrentRequests: t.int(update("maxConcurrentRequests")),
      apiKey: t.string(update("apiKey")),
    }),
  },
  {
    resolve: async (_root, { input }, ctx) => {
      // An explicit null clears baseUrl; any other field given as null is left as it is.
      const changes = Object.fromEntries(Object.entries(input).filter(([k, v]) => k !== "id" && (v !== null || k === "baseUrl") && v !== undefined));
      return { connection: await ctx.services.connections.updateConnection(ctx.principal, { ...changes, id: input.id.id }) };
    },
  },
  { outputFields: (t) => ({ connection: t.prismaField({ type: "Connection", resolve: (query, p, _a, ctx) => ctx.prisma.connection.findUniqueOrThrow({ ...query, where: { id: p.connection.id } }) }) }) },
);

builder.relayMutationField(
  "deleteConnection",
  { description: "Deletes a connection and its stored key.", inputFields: (t) => ({ id: t.globalID({ for: ProviderConnectionRef, required: true }) }) },
  {
    resolve: async (_root, { input }, ctx) => {
      const c = await ctx.services.connections.deleteConnection(ctx.principal, { id: input.id.id });
      return { deletedConnectionId: c.id, name: c.name };
    },
  },
  {
    outputFields: (t) => ({
      deletedConnectionId: t.globalID({ resolve: (p) => ({ type: "ProviderConnection", id: p.deletedConnectionId }) }),
      name: t.exposeString("name"),
    }),
  },
);

builder.relayMutationField(
  "testConnection",
  {
    description: "Calls the provider once with the connection's key and model (a 1-token chat completion or message, no retry) and says whether they work, and why not (docs/connections.md § Testing a connection).",
    inputFields: (t) => ({ id: t.globalID({ for: ProviderConnectionRef, required: true }), model: t.string(describedBy(testConnectionInputSchema)("model")) }),
  },
  { resolve: (_root, { input }, ctx) => ctx.services.connections.testConnection(ctx.principal, { id: input.id.id, ...(input.model != null ? { model: input.model } : {}) }) },
  {
    outputFields: (t) => ({
      connection: t.prismaField({ type: "Connection", resolve: (query, p: ConnectionTestResult, _a, ctx) => ctx.prisma.connection.findUniqueOrThrow({ ...query, where: { id: p.connection.id } }) }),
      ok: t.boolean({ description: "True when the provider answered with the model.", resolve: (p: ConnectionTestResult) => p.ok }),
      model: t.string({ description: "The model that answered (as the provider names it), else the one asked for.", resolve: (p: ConnectionTestResult) => p.model }),
      latencyMs: t.int({ description: "Time of the call, in milliseconds.", resolve: (p: ConnectionTestResult) => Math.round(p.latencyMs) }),
      error: t.field({ type: ConnectionTestError, nullable: true, description: "Why it failed (null when ok).", resolve: (p: ConnectionTestResult) => p.error }),
    }),
  },
);

export type { Connection };
