import type { Plugin } from "graphql-yoga";
import type { Config } from "../../config.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Redis } from "../../lib/redis.js";
import { rateLimiter, takeRate } from "../../graphql/limits.js";
import { redisReachable } from "../../lib/redis.js";
import { createOtlpTraceHandler, type OtlpDeps } from "./handler.js";

/** What the OTLP route reads of the application (the composition root's App has it). */
export interface OtlpHost {
  config: Pick<Config, "RATE_LIMIT_INGEST_PER_MINUTE" | "QUEUE_PREFIX" | "OTLP_MAX_BODY_BYTES">;
  redis: Redis;
  prisma: PrismaClient;
  logger: Logger;
  services: { spans: OtlpDeps["spans"]; workspaces: { authenticate: OtlpDeps["authenticate"] } };
}

/** The OTLP/HTTP trace path (the OTLP default, so exporters need only the base URL). */
export const OTLP_TRACES_PATH = "/v1/traces";

/** Serves `POST /v1/traces` beside GraphQL (see handler.ts); outside GraphQL's auth, with its own. */
export function otlpPlugin(app: OtlpHost): Plugin {
  // The same per-workspace ingest budget as the ingestSpans mutation (one Redis counter): a token per started 1,000 spans.
  const ingestRate = rateLimiter(app.redis, "ingest", app.config.RATE_LIMIT_INGEST_PER_MINUTE, app.config.QUEUE_PREFIX);
  const handle = createOtlpTraceHandler({
    spans: app.services.spans,
    authenticate: (secret) => app.services.workspaces.authenticate(secret),
    healthy: async () => {
      const [postgres, redis] = await Promise.all([app.prisma.$queryRaw`SELECT 1`.then(() => true, () => false), redisReachable(app.redis)]);
      return postgres && redis;
    },
    logger: app.logger.child({ route: OTLP_TRACES_PATH }),
    maxBodyBytes: app.config.OTLP_MAX_BODY_BYTES,
    rateLimit: (workspaceId, points) => takeRate(ingestRate, workspaceId, points),
  });
  return {
    async onRequest({ url, request, endResponse }) {
      if (url.pathname === OTLP_TRACES_PATH) endResponse(await handle(request));
    },
  };
}
