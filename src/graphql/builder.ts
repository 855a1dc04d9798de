import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import ValidationPlugin from "@pothos/plugin-validation";
import type PrismaTypes from "../generated/pothos-prisma-types.js";
import { getDatamodel } from "../generated/pothos-prisma-types.js";
import { BadUserInputError, UnauthenticatedError, toInputIssues } from "../lib/errors.js";
import { PAGE_SIZE } from "./connections.js";
import type { GraphQLContext } from "./context.js";

/** The one Pothos builder: plugins and options only; types live in each module's graphql.ts. */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: { workspace: boolean };
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    File: { Input: File; Output: never };
  };
}>({
  plugins: [ScopeAuthPlugin, ValidationPlugin, PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: async (ctx) => ({ workspace: Boolean(ctx.principal?.workspaceId) }),
    unauthorizedError: () => new UnauthenticatedError(),
  },
  validation: {
    validationError: (result) => new BadUserInputError(toInputIssues(result.issues)),
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    defaultConnectionSize: PAGE_SIZE.default,
    maxConnectionSize: PAGE_SIZE.max,
    // A prismaField whose resolver drops the selection Pothos built loads relations twice (N+1):
    // an error in development and tests, silent in production.
    onUnusedQuery: process.env.NODE_ENV === "production" ? null : "error",
  },
  // node and nodes are defined in node.ts: answered per id, NOT_FOUND/BAD_USER_INPUT with a code.
  relay: { clientMutationId: "omit", cursorType: "String", nodeQueryOptions: false, nodesQueryOptions: false },
});

builder.scalarType("DateTime", {
  description: "An instant, as an ISO 8601 string in UTC.",
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new BadUserInputError([{ path: "", message: "must be an ISO 8601 date-time" }]);
    return date;
  },
});

builder.scalarType("JSON", {
  description: "Any JSON value.",
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.scalarType("File", {
  description: "An uploaded file (a GraphQL multipart request: the form fields operations, map and the file).",
  serialize: () => {
    throw new Error("File is an input-only scalar");
  },
  parseValue: (value) => {
    if (typeof value !== "object" || value === null || typeof (value as File).stream !== "function") {
      throw new BadUserInputError([{ path: "", message: "must be a file sent as a multipart upload" }]);
    }
    return value as File;
  },
});

builder.queryType({ authScopes: { workspace: true } });
builder.mutationType({ authScopes: { workspace: true } });
builder.subscriptionType({ authScopes: { workspace: true } });
