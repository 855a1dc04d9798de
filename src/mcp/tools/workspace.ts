import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { limitsText } from "../../cli/commands/workspace.js";
import type { Operations } from "../../api-client/operations.js";
import { badArguments, toolResult } from "../results.js";

/** The arguments of genai_workspace. Strict: a misspelt argument is refused by name, as the CLI and GraphQL refuse it. */
export const workspaceInput = z.strictObject({
  action: z.enum(["limits", "set_retention"]).describe("limits: the retention in force (and where it comes from), rate limits and the live backlog bound; set_retention: how long spans, their runs and scores, and run history are kept (exactly one of retentionDays, keepForever: true, useDefault: true)."),
  retentionDays: z.number().int().describe("set_retention: keep this many days (1 to the deployment's ceiling, workspaceLimits.retention.maxDays).").optional(),
  keepForever: z.boolean().describe("set_retention: true keeps everything (refused while the deployment sets a ceiling).").optional(),
  useDefault: z.boolean().describe("set_retention: true goes back to the deployment's default.").optional(),
});

/** The tool's arguments. */
export type WorkspaceArgs = z.infer<typeof workspaceInput>;

/** genai_workspace: the workspace's limits and retention over the same GraphQL operations as the CLI (`oodle workspace limits|retention`). */
export const workspaceTool = {
  name: "genai_workspace",
  description:
    "The Oodle workspace's limits and data retention. " +
    '{"action": "limits"}: retention in force, rate limits, backlog bound. ' +
    '{"action": "set_retention", "retentionDays": 30} (or "keepForever": true, or "useDefault": true): older spans, their runs and scores, and run history are deleted by the worker\'s sweep in short batches.',
  inputSchema: workspaceInput,
  async run(ops: Operations, args: WorkspaceArgs): Promise<CallToolResult> {
    switch (args.action) {
      case "limits": {
        const limits = await ops.workspaceLimits();
        return toolResult(limits, limitsText(limits));
      }
      case "set_retention": {
        const given = [args.retentionDays !== undefined, args.keepForever === true, args.useDefault === true].filter(Boolean).length;
        if (given !== 1) throw badArguments([{ path: "retentionDays", message: "give exactly one of retentionDays (days), keepForever: true or useDefault: true" }]);
        const input = args.retentionDays !== undefined ? { retentionDays: args.retentionDays } : args.keepForever ? { keepForever: true } : { useDefault: true };
        const limits = await ops.setWorkspaceRetention(input);
        return toolResult(limits, limitsText(limits));
      }
    }
  },
};
