import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, type ApiIssue } from "../api-client/http.js";

/** A successful tool result: structured content plus a short text. Lists are wrapped as `{items}`. */
export function toolResult(data: unknown, text: string): CallToolResult {
  const structured = Array.isArray(data) ? { items: data } : (data as Record<string, unknown>);
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/**
 * An expected error as an `isError` result (never a protocol failure): the API's code, the
 * first field it names, every issue and the conflict details (e.g. the evaluators that block a
 * settings change). Anything unexpected is reported as INTERNAL without its internals.
 */
export function toolError(error: unknown): CallToolResult {
  const e = error instanceof ApiError ? error : new ApiError("INTERNAL", "an unexpected error occurred");
  const field = e.field ?? null;
  const issues = e.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  const retry = e.retryAfterSeconds !== null ? ` (retryAfterSeconds: ${e.retryAfterSeconds}; retry the call after that)` : "";
  const text = `${e.code}${field ? ` (${field})` : ""}: ${issues || e.message}${retry}`;
  return {
    isError: true,
    content: [{ type: "text", text }],
    structuredContent: { error: { code: e.code, message: e.message, field, issues: e.issues, details: e.details, retryAfterSeconds: e.retryAfterSeconds } },
  };
}

/** A BAD_USER_INPUT error from issues found in the tool's own arguments. */
export function badArguments(issues: ApiIssue[]): ApiError {
  return new ApiError("BAD_USER_INPUT", issues.map((i) => `${i.path}: ${i.message}`).join("; "), issues);
}
