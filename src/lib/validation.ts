import type { z } from "zod";
import { toInputIssues, type InputIssue } from "./errors.js";

/**
 * Parses `value` with a zod schema without throwing.
 * @returns the parsed data (null when invalid) and every issue, paths like `params[3].default`.
 */
export function parseIssues<S extends z.ZodType>(schema: S, value: unknown, prefix = ""): { data: z.infer<S> | null; issues: InputIssue[] } {
  const result = schema.safeParse(value);
  if (result.success) return { data: result.data, issues: [] };
  return { data: null, issues: toInputIssues(result.error.issues, prefix) };
}

/**
 * A zod `error` option for a field's type: "is required" when it is missing, else
 * `must be <expected>`.
 */
export function typeError(expected: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${expected}`);
}
