import { randomUUID } from "node:crypto";
import { GraphQLError } from "graphql";
import { createYoga, maskError, type Plugin } from "graphql-yoga";
import type { App } from "./app.js";
import type { GraphQLContext } from "./graphql/context.js";
import { inputErrorsPlugin } from "./graphql/input-errors.js";
import { schema } from "./graphql/schema.js";
import { UnauthenticatedError } from "./lib/errors.js";
import { redisReachable } from "./lib/redis.js";

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
 * Builds the GraphQL server (no port: tests call `yoga.fetch`). Expected errors are AppErrors
 * with `extensions.code`; anything else is logged with the request id and masked.
 */
export function createServer(app: App) {
  return createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: { title: "Oodle code evaluators", defaultQuery: "{ viewer { workspace { id name } } }" },
    landingPage: false,
    logging: false,
    plugins: [healthPlugin(app), inputErrorsPlugin()],
    maskedErrors: {
      maskError(error, message, isDev) {
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
}
