import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { connectionTestText } from "../../cli/commands/connections.js";
import type { Operations } from "../../api-client/operations.js";
import { testConnectionInputSchema } from "../../modules/connections/schemas.js";
import { badArguments, toolResult } from "../results.js";

/**
 * The arguments of genai_connections. Listing and testing only: creating a connection or setting
 * its key is left to the CLI and GraphQL, so a provider key never passes through an agent's
 * context.
 */
// Strict: a misspelt argument is refused by name, as the CLI and GraphQL refuse it, never dropped.
export const connectionsInput = z.strictObject({
  action: z.enum(["list", "test"]).describe("list: the workspace's connections to LLM providers (never their keys); test: call the provider once (1 output token) with a connection's key and model and say whether they work."),
  connection: z.string().describe("test: the connection, by name or global id.").optional(),
  model: testConnectionInputSchema.shape.model,
});

/** The tool's arguments. */
export type ConnectionsArgs = z.infer<typeof connectionsInput>;

/** genai_connections: connections over the same GraphQL operations as the CLI (`oodle genai connections`). */
export const connectionsTool = {
  name: "genai_connections",
  description:
    "Connections of the Oodle workspace to LLM providers (openai: any OpenAI-compatible API; anthropic), used by LLM-judge evaluators. " +
    '{"action": "list"} lists them (name, provider, default model, base URL, the key\'s last 4 characters); {"action": "test", "connection": "openai"} calls the provider once and answers ok, the model and latency, or an error code ' +
    "(invalid_key, permission_denied, unknown_model, rate_limited with retryAfterSeconds, unreachable, timeout, provider_error) with the provider's message. Creating connections and setting keys is done with the CLI (oodle genai connections create).",
  inputSchema: connectionsInput,
  async run(ops: Operations, args: ConnectionsArgs): Promise<CallToolResult> {
    const c = ops.connections;
    switch (args.action) {
      case "list": {
        const list = await c.listConnections();
        return toolResult(list, list.map((x) => `${x.name} (${x.id}): ${x.provider}, ${x.defaultModel}${x.baseUrl ? ` at ${x.baseUrl}` : ""}${x.keyHint ? `, key …${x.keyHint}` : ""}`).join("\n") || "no connections");
      }
      case "test": {
        if (!args.connection) throw badArguments([{ path: "connection", message: "is required: the connection to test, by name or id" }]);
        const r = await c.testConnection(await c.connectionId(args.connection, "connection"), args.model);
        return toolResult(r, connectionTestText(r));
      }
    }
  },
};
