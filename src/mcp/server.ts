import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Operations } from "../api-client/operations.js";
import { toInputIssues, type InputIssue } from "../lib/errors.js";
import { RENAMED_FIELDS } from "../lib/renamed-fields.js";
import { badArguments, toolError } from "./results.js";
import { backfillsTool } from "./tools/backfills.js";
import { connectionsTool } from "./tools/connections.js";
import { manageEvaluatorsTool } from "./tools/manage-evaluators.js";
import { monitorsTool } from "./tools/monitors.js";
import { pricesTool } from "./tools/prices.js";
import { workbenchTool } from "./tools/workbench.js";
import { workspaceTool } from "./tools/workspace.js";

/** The MCP tools (their names also in tool-names.ts, for `oodle --help`; test/mcp checks both): each a zod input schema (the modules' own field schemas) and a handler over the operations. */
const TOOLS = [manageEvaluatorsTool, workbenchTool, backfillsTool, monitorsTool, workspaceTool, connectionsTool, pricesTool] as const;

/** The JSON Schema of a tool's input, from its zod schema with the descriptions. */
function jsonSchemaOf(schema: z.ZodType): { type: "object"; [key: string]: unknown } {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return { ...json, type: "object" };
}

/**
 * A tool's refused arguments as `{path, message}` issues: an unknown argument is named, with the
 * name to use for one the settings page spells differently.
 */
function argumentIssues(toolName: string, issues: z.core.$ZodIssue[]): InputIssue[] {
  return issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({
          path: [...issue.path.map(String), key].join("."),
          message: `is not an argument of ${toolName}${RENAMED_FIELDS[key] ? `: ${RENAMED_FIELDS[key]}` : ""}`,
        }))
      : toInputIssues([issue]),
  );
}

/**
 * One MCP server over the operations (HTTP to the API for stdio, in-process yoga for /mcp), so
 * every rule is the API's. Bad arguments and every expected API error are `isError` results with
 * the code and the field, never protocol failures.
 */
export function createMcpServer(ops: Operations): Server {
  const server = new Server({ name: "oodle", version: "0.1.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: jsonSchemaOf(t.inputSchema) })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) return toolError(badArguments([{ path: "name", message: `unknown tool "${request.params.name}": the tools are ${TOOLS.map((t) => t.name).join(", ")}` }]));
    const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return toolError(badArguments(argumentIssues(tool.name, parsed.error.issues)));
    try {
      // The original arguments go to the API (it applies the same schemas again, with its own rules).
      return await tool.run(ops, { ...(request.params.arguments as object), action: parsed.data.action } as never);
    } catch (error) {
      return toolError(error);
    }
  });
  return server;
}
