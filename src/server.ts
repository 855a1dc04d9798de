import { randomUUID } from "node:crypto";
import { GraphQLError } from "graphql";
import { createYoga, maskError, type Plugin } from "graphql-yoga";
import type { App } from "./app.js";
import type { GraphQLContext } from "./graphql/context.js";
import { rateLimitPlugin, requestLimitPlugins } from "./graphql/limits.js";
import { argumentError } from "./graphql/argument-errors.js";
import { inputErrorsPlugin } from "./graphql/input-errors.js";
import { strictUtf8Plugin } from "./graphql/strict-utf8.js";
import { schema } from "./graphql-schema.js";
import { toGraphQLError } from "./graphql/errors.js";
import { AppError, ServiceUnavailableError, UnauthenticatedError } from "./lib/errors.js";
import { isInfrastructureError } from "./lib/infra-errors.js";
import { redisReachable } from "./lib/redis.js";
import { mcpPlugin } from "./mcp/http.js";
import { renderOfflineGraphiQL, rootRedirectPlugin } from "./modules/graphiql/plugin.js";
import { metricsPlugin } from "./modules/metrics/http.js";
import { otlpPlugin } from "./modules/otlp/plugin.js";

/** `/ready`: Postgres and Redis answer (yoga's own `/health` is the liveness check). Outside auth. */
function healthPlugin(app: App): Plugin {
  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      const json = (body: unknown, status = 200) =>
        new fetchAPI.Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      if (url.pathname === "/ready") {
        const [postgres, redis] = await Promise.all([
          app.prisma.$queryRaw`SELECT 1`.then(() => true, () => false),
          redisReachable(app.redis),
        ]);
        const ready = postgres && redis;
        const checks = { postgres: postgres ? "up" : "down", redis: redis ? "up" : "down" };
        endResponse(json({ status: ready ? "ready" : "unavailable", checks }, ready ? 200 : 503));
      }
    },
  };
}

/** Reads `Authorization: Bearer <key>`; anything else is UNAUTHENTICATED (401). */
function bearerSecret(request: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1] ?? null;
}

/**
 * Builds the GraphQL server (no port: tests call `yoga.fetch`). Expected errors are AppErrors,
 * answered with `extensions.code`, their details and an HTTP status ({@link toGraphQLError});
 * anything else is logged with the request id and masked.
 */
export function createServer(app: App) {
  // Late-bound: the /mcp plugin calls this same server in-process.
  let self: { fetch: (request: Request) => Response | Promise<Response> } | undefined;
  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: { title: "Oodle code evaluators", defaultQuery: "{ viewer { workspace { id name } } }" },
    renderGraphiQL: renderOfflineGraphiQL,
    landingPage: false,
    logging: false,
    plugins: [
      healthPlugin(app),
      strictUtf8Plugin(),
      inputErrorsPlugin(),
      // MCP over streamable HTTP at /mcp: its tools call this same yoga in-process with the caller's
      // key, so the request limits below apply to every tool call too.
      mcpPlugin(app, () => self!),
      otlpPlugin(app),
      metricsPlugin(app),
      rootRedirectPlugin("/graphql"),
      ...requestLimitPlugins(),
      rateLimitPlugin(
        app.redis,
        {
          ingestPerMinute: app.config.RATE_LIMIT_INGEST_PER_MINUTE,
          tryCodePerMinute: app.config.RATE_LIMIT_TRY_CODE_PER_MINUTE,
          mutationsPerMinute: app.config.RATE_LIMIT_MUTATIONS_PER_MINUTE,
          readsPerMinute: app.config.RATE_LIMIT_READS_PER_MINUTE,
        },
        app.config.QUEUE_PREFIX,
      ),
    ],
    maskedErrors: {
      maskError(error, message, isDev) {
        const located = error instanceof GraphQLError ? error : undefined;
        const original = located ? (located.originalError ?? located) : error;
        if (original instanceof AppError) return toGraphQLError(original, located);
        if (typeof original === "object" && original !== null && (original as { code?: unknown }).code === "P2025") {
          // A record required but not found (node(id) of another workspace, one that was deleted): no existence leak.
          return toGraphQLError(new AppError("NOT_FOUND", "no record with this id in this workspace"), located);
        }
        // A malformed id or cursor, arguments that do not go together: the caller's input, with a code and without echoing it back.
        const bad = argumentError(original, located?.path ? located.path.join(".") : undefined);
        if (bad) return toGraphQLError(bad, located);
        if (isInfrastructureError(original)) {
          // Postgres or Redis is down: a retryable answer the client can act on, not a masked 500.
          app.logger.warn({ err: original instanceof Error ? original.message : String(original) }, "dependency unavailable; request refused as retryable");
          return toGraphQLError(new ServiceUnavailableError(), located);
        }
        const masked = maskError(error, message, isDev);
        if (masked !== error) {
          const isGraphQL = error instanceof GraphQLError;
          app.logger.error(
            { err: isGraphQL ? (error.originalError ?? error) : error, path: isGraphQL ? error.path : undefined },
            "unexpected error (masked)",
          );
        }
        return masked;
      },
    },
    context: async ({ request }) => {
      const requestId = request.headers.get("x-request-id") ?? randomUUID();
      const logger = app.logger.child({ requestId });
      const secret = bearerSecret(request);
      const principal = secret ? await app.services.workspaces.authenticate(secret) : null;
      if (!principal) throw new UnauthenticatedError(secret ? "the API key is unknown or revoked" : undefined);
      return { principal, services: app.services, prisma: app.prisma, logger, requestId };
    },
  });
  self = yoga;
  return yoga;
}
