import { randomUUID } from "node:crypto";
import { createApp, type App } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { createServer } from "../src/server.js";

/** An app on the test database and Redis (vitest.config sets the environment). */
export function createTestApp(env: Record<string, string> = {}): App {
  return createApp(loadConfig({ ...process.env, ...env }));
}

/** A fresh workspace of its own for one test, with its first key. */
export async function createTestWorkspace(app: App, label = "test") {
  return app.services.workspaces.createWorkspace(`${label}-${randomUUID().slice(0, 8)}`);
}

/** GraphQL over `yoga.fetch` (no port). Returns the HTTP status and the parsed body. */
export function graphqlClient(app: App) {
  const yoga = createServer(app);
  return {
    yoga,
    async request<T = Record<string, any>>(query: string, variables: Record<string, unknown> = {}, key?: string) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (key) headers.authorization = `Bearer ${key}`;
      const response = await yoga.fetch("http://localhost/graphql", { method: "POST", headers, body: JSON.stringify({ query, variables }) });
      const body = (await response.json()) as { data?: T; errors?: { message: string; extensions?: Record<string, any> }[] };
      return { status: response.status, ...body };
    },
  };
}
