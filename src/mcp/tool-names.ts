/**
 * The names of the MCP tools, in the order they are listed. Its own module so that `oodle --help`
 * names every tool without loading the tools' schemas; server.ts checks each tool is here.
 */
export const MCP_TOOL_NAMES = ["manage_genai_evaluators", "genai_evaluator_workbench", "genai_backfills", "genai_monitors", "genai_workspace", "genai_connections", "genai_prices"] as const;
