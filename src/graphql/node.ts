import { decodeGlobalID, resolveNodes } from "@pothos/plugin-relay";
import { isObjectType, type GraphQLResolveInfo } from "graphql";
import { AppError, BadUserInputError } from "../lib/errors.js";
import { isUuid } from "../lib/uuid.js";
import { builder } from "./builder.js";
import type { GraphQLContext } from "./context.js";

/** At most this many ids in one `nodes(ids)` (each is its own lookup). */
export const MAX_NODES_IDS = 100;

/**
 * A global id that names no record of the caller's workspace (another workspace's, a deleted
 * one). The message never repeats the id, so nothing the caller sent is echoed back.
 */
export class NodeNotFoundError extends AppError {
  constructor() {
    super("NOT_FOUND", "no record with this id in this workspace");
  }
}

/** A malformed global id (not one this API gave out), refused at `path` without echoing it. */
function malformedId(path: string): BadUserInputError {
  return new BadUserInputError([{ path, message: "is not a valid id of this API (ids come from its answers)" }]);
}

/** Prisma's "record required but not found" (a findUniqueOrThrow that matched nothing in the workspace). */
function isRecordNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2025";
}

/**
 * Loads one node by its global id, only from the caller's workspace (each node type's
 * `findUnique` adds the workspace). Every id of this API is a UUID of a type implementing Node.
 * @param path - the argument's path, for the error (`id`, `ids[3]`)
 * @throws BadUserInputError for a malformed id; NodeNotFoundError when the workspace has no such record
 */
async function loadNode(globalId: string, path: string, ctx: GraphQLContext, info: GraphQLResolveInfo): Promise<unknown> {
  let decoded: { typename: string; id: string };
  try {
    decoded = decodeGlobalID(globalId);
  } catch {
    throw malformedId(path);
  }
  const type = info.schema.getType(decoded.typename);
  if (!isObjectType(type) || !type.getInterfaces().some((i) => i.name === "Node") || !isUuid(decoded.id)) throw malformedId(path);
  try {
    const [node] = await resolveNodes(builder, ctx, info, [decoded]);
    if (node == null) throw new NodeNotFoundError();
    return node;
  } catch (error) {
    if (isRecordNotFound(error)) throw new NodeNotFoundError();
    throw error;
  }
}

builder.queryField("node", (t) =>
  t.field({
    type: builder.nodeInterfaceRef(),
    nullable: true,
    description: "A record of the workspace by its global id: null with NOT_FOUND for an id of no record here (another workspace's among them), BAD_USER_INPUT for a malformed id.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx, info) => loadNode(String(args.id), "id", ctx, info) as never,
  }),
);

builder.queryField("nodes", (t) =>
  t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    description: `Records by global id, answered per id in the order asked: an id of no record here is null with a NOT_FOUND error at its index, a malformed one null with BAD_USER_INPUT; the others load. At most ${MAX_NODES_IDS} ids.`,
    args: { ids: t.arg.idList({ required: true }) },
    resolve: (_root, args, ctx, info) => {
      if (args.ids.length > MAX_NODES_IDS) throw new BadUserInputError([{ path: "ids", message: `at most ${MAX_NODES_IDS} ids (got ${args.ids.length})` }]);
      // One promise per id: graphql-js nulls a rejected item and reports its error at nodes[i].
      return args.ids.map((id, i) => loadNode(String(id), `ids[${i}]`, ctx, info)) as never;
    },
  }),
);
