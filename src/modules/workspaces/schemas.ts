import { z } from "zod";

// Shared input schemas of the workspaces feature (GraphQL, CLI and MCP use the same).

/** A workspace name: trimmed, 1–100 characters. */
export const workspaceNameSchema = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");
/** An API key's name: trimmed, 1–100 characters. */
export const apiKeyNameSchema = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");
