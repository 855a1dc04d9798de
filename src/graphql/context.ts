import type { Logger } from "../lib/logger.js";
import type { PrismaClient } from "../lib/prisma.js";
import type { Principal } from "../modules/workspaces/service.js";
import type { Services } from "../app.js";

/** The context of one GraphQL request: the caller, the services and a request-scoped logger. */
export interface GraphQLContext {
  principal: Principal;
  services: Services;
  prisma: PrismaClient;
  logger: Logger;
  requestId: string;
}
