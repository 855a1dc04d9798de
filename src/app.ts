import type { Config } from "./config.js";
import { createLogger, type Logger } from "./lib/logger.js";
import { createPrisma, type PrismaClient } from "./lib/prisma.js";
import { createRedis, type Redis } from "./lib/redis.js";
import { createEvaluatorService } from "./modules/evaluators/service.js";
import { createSharedLibraryService } from "./modules/shared-libraries/service.js";
import { createTemplateService } from "./modules/templates/service.js";
import { createWorkspaceService } from "./modules/workspaces/service.js";
import { createQueues, type Queues } from "./queues/queues.js";

/** The services of every feature, built once and shared by GraphQL, jobs, CLI and MCP. */
export interface Services {
  workspaces: ReturnType<typeof createWorkspaceService>;
  templates: ReturnType<typeof createTemplateService>;
  evaluators: ReturnType<typeof createEvaluatorService>;
  sharedLibraries: ReturnType<typeof createSharedLibraryService>;
}

/** Everything a process needs: connections, queues, services; `close` releases them. */
export interface App {
  config: Config;
  logger: Logger;
  prisma: PrismaClient;
  /** Fail-fast connection for producers and readiness checks. */
  redis: Redis;
  queues: Queues;
  services: Services;
  close(): Promise<void>;
}

/** The composition root: builds Prisma, Redis, queues and services from the configuration. */
export function createApp(config: Config, overrides: { logger?: Logger } = {}): App {
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL);
  const prisma = createPrisma(config.DATABASE_URL);
  const redis = createRedis(config.REDIS_URL, "producer");
  redis.on("error", (err: Error) => logger.debug({ err: err.message }, "redis connection error"));
  const queues = createQueues(redis, config.QUEUE_PREFIX, logger);
  const services: Services = {
    workspaces: createWorkspaceService({ prisma, queues, logger }),
    templates: createTemplateService({ prisma, logger }),
    evaluators: createEvaluatorService({ prisma, logger }),
    sharedLibraries: createSharedLibraryService({ prisma, logger }),
  };
  return {
    config,
    logger,
    prisma,
    redis,
    queues,
    services,
    async close() {
      await queues.close().catch(() => undefined);
      redis.disconnect();
      await prisma.$disconnect();
    },
  };
}
