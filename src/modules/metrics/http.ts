/**
 * Where `/metrics` is served: on the API port behind its own bearer token (`METRICS_TOKEN`, not an
 * API key: a scraper must not be able to read a workspace), and/or on a separate listener bound to
 * an admin address (`METRICS_HOST:METRICS_PORT`, no token) that every role can start — the way to
 * scrape a `--role worker` process, which has no API port.
 */
import { timingSafeEqual, createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { Plugin } from "graphql-yoga";
import type { Config } from "../../config.js";
import type { Logger } from "../../lib/logger.js";
import type { Metrics } from "./registry.js";

/** What the metrics routes read of the application (the composition root's App has it). */
export interface MetricsHost {
  config: Pick<Config, "METRICS_TOKEN" | "METRICS_PORT" | "METRICS_HOST">;
  metrics: Pick<Metrics, "scrape">;
  logger: Pick<Logger, "error">;
}

/** The path of the metrics, as Prometheus expects by default. */
export const METRICS_PATH = "/metrics";

function sameToken(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** `GET /metrics` on the API port: 404 unless METRICS_TOKEN is set, then 401 without that exact bearer token. */
export function metricsPlugin(app: MetricsHost): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== METRICS_PATH) return;
      const token = app.config.METRICS_TOKEN;
      const text = (body: string, status: number, headers: Record<string, string> = {}) =>
        new fetchAPI.Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });
      if (!token) return endResponse(text("metrics are not served on this port (set METRICS_TOKEN, or METRICS_PORT for a separate listener)\n", 404));
      const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      if (!given || !sameToken(given, token)) return endResponse(text("send Authorization: Bearer <METRICS_TOKEN>\n", 401, { "www-authenticate": "Bearer" }));
      const { contentType, body } = await app.metrics.scrape();
      endResponse(new fetchAPI.Response(body, { status: 200, headers: { "content-type": contentType } }));
    },
  };
}

/** Starts the separate metrics listener on METRICS_HOST:METRICS_PORT; resolves once it listens. */
export async function startMetricsListener(app: MetricsHost, port = app.config.METRICS_PORT ?? 0, host = app.config.METRICS_HOST): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== METRICS_PATH) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    app.metrics.scrape().then(
      ({ contentType, body }) => res.writeHead(200, { "content-type": contentType }).end(body),
      (error: unknown) => {
        app.logger.error({ err: error }, "metrics scrape failed");
        res.writeHead(500, { "content-type": "text/plain" }).end("scrape failed\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return server;
}
