/**
 * `oodle` (bin/oodle.js): the CLI's commands (src/cli) and `oodle mcp serve` (src/mcp), wired
 * here, above both: the MCP tools reuse the CLI's commands, so the CLI does not import the MCP.
 */
import { buildProgram, runProgram } from "./cli/main.js";
import { mcpCommand } from "./mcp/command.js";

await runProgram(buildProgram([mcpCommand]));
