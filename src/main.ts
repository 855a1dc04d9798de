/**
 * Process entry point: `tsx src/main.ts [--role all|api|worker] [--local-key]`.
 * Starts the API (GraphiQL at /graphql) and/or the queue workers, and shuts both down
 * gracefully on SIGINT/SIGTERM within SHUTDOWN_TIMEOUT_MS.
 */
import { createServer as createHttpServer } from "node:http";
import type { Socket } from "node:net";
import { parseArgs } from "node:util";
import { createApp } from "./app.js";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { isInfrastructureError } from "./lib/infra-errors.js";
import { checkRedisOperations } from "./lib/redis-checks.js";
import { startMetricsListener } from "./modules/metrics/http.js";
import { createServer } from "./server.js";
import { startWorkers, type Workers } from "./worker.js";

const { values } = parseArgs({
  options: { role: { type: "string", default: "all" }, "local-key": { type: "boolean", default: false } },
});
const role = values.role;
if (role !== "all" && role !== "api" && role !== "worker") {
  console.error(`--role must be all, api or worker (got "${role}")`);
  process.exit(2);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const app = createApp(config);
const logger = app.logger;
let workers: Workers | undefined;
let httpServer: ReturnType<typeof createHttpServer> | undefined;
let metricsServer: ReturnType<typeof createHttpServer> | undefined;
let yoga: ReturnType<typeof createServer> | undefined;
const sseSockets = new Set<Socket>();

// A connection error that no listener took (a driver emitting 'error' at an odd moment during a
// Postgres or Redis restart) must not end the process: the clients reconnect. Anything else does.
process.on("uncaughtException", (error) => {
  if (isInfrastructureError(error)) {
    logger.error({ err: error.message }, "unhandled connection error; carrying on (the clients reconnect)");
    return;
  }
  logger.fatal({ err: error }, "uncaught exception");
  process.exit(1);
});
process.on("unhandledRejection", (reason) => {
  if (isInfrastructureError(reason)) {
    logger.error({ err: reason instanceof Error ? reason.message : String(reason) }, "unhandled connection error; carrying on");
    return;
  }
  logger.fatal({ err: reason }, "unhandled rejection");
  process.exit(1);
});

try {
  await checkRedisOperations(app.redis, config.REDIS_EVICTION_CHECK, logger);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  await app.close();
  process.exit(1);
}

if (role !== "api") {
  try {
    workers = await startWorkers(app);
  } catch (error) {
    // Fail closed: no worker runs user code without a working sandbox.
    logger.fatal({ err: error instanceof Error ? error.message : String(error) }, "the worker cannot start");
    console.error(`The worker cannot start: ${error instanceof Error ? error.message : String(error)}`);
    await app.close();
    process.exit(1);
  }
}
if (role !== "worker") {
  yoga = createServer(app);
  httpServer = createHttpServer(yoga);
  // SSE subscriptions (experimentProgress) stay open until their experiment ends: kept here so a
  // shutdown ends them at once instead of waiting for them to drain.
  httpServer.on("request", (request, response) => {
    if (!String(request.headers.accept ?? "").includes("text/event-stream")) return;
    sseSockets.add(request.socket);
    response.once("close", () => sseSockets.delete(request.socket));
  });
  await new Promise<void>((resolve) => {
    httpServer!.once("error", (error: NodeJS.ErrnoException) => {
      const hint = error.code === "EADDRINUSE" ? ` (another npm start?): stop it or set PORT` : "";
      console.error(`cannot listen on ${config.HOST}:${config.PORT}: ${error.code ?? error.message}${hint}`);
      process.exit(1);
    });
    httpServer!.listen(config.PORT, config.HOST, resolve);
  });
  const url = `http://${config.HOST}:${config.PORT}/graphql`;
  logger.info({ url }, "API listening");
  if (values["local-key"]) {
    const workspace = await app.services.workspaces.findOrCreateWorkspace("local");
    const { secret } = await app.services.workspaces.createApiKey(workspace.id, `npm start ${new Date().toISOString()}`);
    // Printed to the terminal only, never logged.
    process.stdout.write(
      `\nOodle code evaluators are up.\n  GraphiQL: ${url}\n  Workspace "local" API key (shown once): ${secret}\n` +
        `  Try: curl -s ${url} -H 'Authorization: Bearer ${secret}' -H 'Content-Type: application/json' -d '{"query":"{ viewer { workspace { id name } } }"}'\n\n`,
    );
  }
}

if (config.METRICS_PORT !== undefined) {
  // Every role can serve its metrics on the admin address (a worker has no API port).
  metricsServer = await startMetricsListener(app).catch((error: NodeJS.ErrnoException) => {
    console.error(`cannot listen for metrics on ${config.METRICS_HOST}:${config.METRICS_PORT}: ${error.code ?? error.message}`);
    process.exit(1);
  });
  logger.info({ url: `http://${config.METRICS_HOST}:${config.METRICS_PORT}/metrics` }, "metrics listening");
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  const timer = setTimeout(() => {
    logger.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutdown timed out; exiting");
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  timer.unref();
  // Stop taking work first: close the listener and workers (active jobs finish or are released).
  // Open SSE subscriptions never end by themselves: they are closed at once (the client
  // reconnects elsewhere); other requests get a short while to finish, then every connection
  // left is closed, so the process exits 0 in time.
  for (const socket of sseSockets) socket.destroy();
  sseSockets.clear();
  const drainMs = Math.min(3_000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 3));
  const listenerClosed = httpServer ? new Promise<void>((resolve) => httpServer!.close(() => resolve())) : Promise.resolve();
  httpServer?.closeIdleConnections();
  const drained = Promise.race([listenerClosed, new Promise<void>((resolve) => setTimeout(resolve, drainMs).unref())]).then(() => {
    httpServer?.closeAllConnections();
    return listenerClosed;
  });
  const metricsClosed = metricsServer ? new Promise<void>((resolve) => metricsServer!.close(() => resolve())) : undefined;
  await Promise.all([drained, metricsClosed, workers?.close()]);
  // yoga's own cleanup (plugins' dispose hooks, work a request left running) while the database
  // and Redis are still open.
  await yoga?.dispose();
  await app.close();
  logger.info("stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
