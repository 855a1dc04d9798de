import { randomUUID } from "node:crypto";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import type { Principal } from "../../src/modules/workspaces/service.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { createTestWorkspace, graphqlClient } from "../helpers.js";
import { obliterate } from "../runs/helpers.js";

export { waitFor } from "../runs/helpers.js";

/**
 * An app on a BullMQ prefix of its own with the `evaluate-span` and `evaluation-barrier` workers
 * (the real queue, flows and sandbox), and fresh workspaces.
 */
export async function dependencyHarness(options: { startWorker?: boolean } = {}) {
  const prefix = `oodle-test-deps-${randomUUID().slice(0, 8)}`;
  const app = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: prefix }));
  const start = () => startWorkers(app, { queues: ["evaluate-span", "evaluation-barrier"] });
  let workers: Workers | undefined = options.startWorker === false ? undefined : await start();
  const client = graphqlClient(app);
  return {
    app,
    async workspace(label = "deps") {
      const ws = await createTestWorkspace(app, label);
      const principal: Principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
      const gql = (query: string, variables: Record<string, unknown> = {}) => client.request(query, variables, ws.secret);
      return { ...ws, principal, gql };
    },
    async close() {
      await workers?.close();
      await obliterate(app, prefix);
      await app.close();
    },
  };
}

/** A chat span with a user question and an assistant reply. */
export function chatSpan(traceId: string, spanId: string, reply: string, attributes: Record<string, unknown> = {}) {
  return { traceId, spanId, name: "chat.completion", kind: "chat", input: [{ role: "user", content: "Answer in JSON please" }], output: reply, attributes };
}

/** The stored span ids of an ingest, in batch order. */
export function storedIds(result: { spans: { id: string }[] }): string[] {
  return result.spans.map((s) => s.id);
}
