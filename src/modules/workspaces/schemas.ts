import { nameSchema } from "../../lib/text-rules.js";

// Shared input schemas of the workspaces feature (GraphQL, CLI and MCP use the same).

/** A workspace name: trimmed, 1–100 characters, the name rule of src/lib/text-rules.ts. */
export const workspaceNameSchema = nameSchema(100);
/** An API key's name: trimmed, 1–100 characters, the name rule of src/lib/text-rules.ts. */
export const apiKeyNameSchema = nameSchema(100);
