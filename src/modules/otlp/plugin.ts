import type { Plugin } from "graphql-yoga";
import type { App } from "../../app.js";
import { rateLimiter, takeRate } from "../../graphql/limits.js";
import { redisReachable } from "../../lib/redis.js";
import { createOtlpTraceHandler } from "./handler.js";

/** The OTLP/HTTP trace path (the OTLP default, so exporters need only the base URL). */
export const OTLP_TRACES_PATH = "/v1/traces";

/** Serves `POST /v1/traces` beside GraphQL (see handler.ts); outside GraphQL's auth, with its own. */
export function otlpPlugin(app: App): Plugin {
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
