import { z } from "zod";

/** Shared input schemas of the workspaces feature (GraphQL, CLI and MCP use the same). */
export const workspaceNameSchema = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");
export const apiKeyNameSchema = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");
