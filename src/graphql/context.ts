import type { Logger } from "../lib/logger.js";
import type { PrismaClient } from "../lib/prisma.js";
import type { ApiKeyPrincipal } from "../lib/principal.js";
import type { Services } from "../app.js";

/** The context of one GraphQL request: the caller, the services and a request-scoped logger. */
export interface GraphQLContext {
  principal: ApiKeyPrincipal;
  services: Services;
  prisma: PrismaClient;
  logger: Logger;
  requestId: string;
}
