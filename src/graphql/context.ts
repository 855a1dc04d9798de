import type { Logger } from "../lib/logger.js";
import type { PrismaClient } from "../lib/prisma.js";
import type { ApiKeyPrincipal } from "../lib/principal.js";

/**
 * The services a resolver calls (`ctx.services`). Empty here: src/graphql stands below the
 * modules and cannot name their types, so the composition root fills it in (src/app.ts,
 * `declare module "./graphql/context.js"`) with its Services.
 */
export interface GraphQLServices {}

/** The context of one GraphQL request: the caller, the services and a request-scoped logger. */
export interface GraphQLContext {
  principal: ApiKeyPrincipal;
  services: GraphQLServices;
  prisma: PrismaClient;
  logger: Logger;
  requestId: string;
}
