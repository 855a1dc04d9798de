import type { Command } from "commander";
import { createApiClient } from "../../api-client/http.js";
import { profilesPath, resolveConnection, writeProfile } from "../config.js";
import { action } from "../context.js";
import { CliError } from "../exit-codes.js";
import { createOperations } from "../../api-client/operations.js";
import { emit } from "../output.js";
import { MCP_TOOL_NAMES } from "../../mcp/tool-names.js";

/** `oodle login`, `oodle whoami` and `oodle mcp serve`. */
export function sessionCommands(program: Command): void {
  program
    .command("login")
    .description("checks a URL and API key against the service and saves them as a profile (readable by you only)")
    .addHelpText("after", "\nExample:\n  oodle login --url http://127.0.0.1:4000 --api-key oodle_sk_…\nThe profile file is $OODLE_CONFIG_DIR/profiles.json, else ~/.config/oodle/profiles.json.")
    .action(
      action(async (ctx) => {
        const o = ctx.options;
        if (!ctx.connection.key) throw new CliError("BAD_USER_INPUT", "is required: the workspace's API key (or OODLE_API_KEY)", "--api-key");
        const viewer = await ctx.ops.viewer();
        const name = o.profile ?? process.env.OODLE_PROFILE ?? "default";
        const path = writeProfile(name, { url: ctx.connection.url, key: ctx.connection.key, workspace: viewer.workspace.name });
        emit(ctx.output, { profile: name, url: ctx.connection.url, workspace: viewer.workspace, path }, () => `logged in to workspace "${viewer.workspace.name}" at ${ctx.connection.url} (profile "${name}" in ${path})`);
      }),
    );

  program
    .command("whoami")
    .description("the workspace and key the CLI uses")
    .action(
      action(async (ctx) => {
        const viewer = await ctx.ops.viewer();
        emit(ctx.output, { url: ctx.connection.url, ...viewer }, () => `workspace "${viewer.workspace.name}" at ${ctx.connection.url} (key ${viewer.apiKey.prefix}…, "${viewer.apiKey.name}")`);
      }),
    );

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
      const { createMcpServer } = await import("../../mcp/server.js");
      const server = createMcpServer(createOperations(createApiClient(connection)));
      const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
      await server.connect(new StdioServerTransport());
    });
}
