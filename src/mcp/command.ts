import type { Command } from "commander";
import { createApiClient } from "../api-client/http.js";
import { createOperations } from "../api-client/operations.js";
import { profilesPath, resolveConnection } from "../cli/config.js";
import { MCP_TOOL_NAMES } from "./tool-names.js";

/**
 * `oodle mcp serve`: the MCP server over stdio, with the CLI's connection. Here, not in src/cli:
 * the MCP tools reuse the CLI's commands, so the CLI must not import the MCP server (the entry,
 * src/oodle.ts, adds this command to the CLI's program).
 */
export function mcpCommand(program: Command): void {
  const mcp = program.command("mcp").description(`the MCP server: tools ${MCP_TOOL_NAMES.join(", ")}`);
  mcp
    .command("serve")
    .description("serves MCP over stdio, calling the service with the CLI's URL and key (also served over streamable HTTP at <url>/mcp)")
    .addHelpText("after", `\nAn MCP client config:\n  {"mcpServers": {"oodle": {"command": "npx", "args": ["oodle", "mcp", "serve"], "env": {"OODLE_API_URL": "http://127.0.0.1:4000", "OODLE_API_KEY": "oodle_sk_…"}}}}`)
    .action(async (_options: unknown, command: Command) => {
      const o = command.optsWithGlobals();
      const connection = resolveConnection({ url: o.url, apiKey: o.apiKey, profile: o.profile });
      if (!connection.key) process.stderr.write(`oodle mcp serve: no API key (set OODLE_API_KEY or run oodle login; profiles in ${profilesPath()}): every tool call will fail with UNAUTHENTICATED\n`);
      // Loaded here only: the MCP server pulls in the modules' schemas, which other commands do not need.
      const { createMcpServer } = await import("./server.js");
      const server = createMcpServer(createOperations(createApiClient(connection)));
      const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
      await server.connect(new StdioServerTransport());
    });
}
