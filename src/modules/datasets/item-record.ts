import { toInputIssues, type InputIssue } from "../../lib/errors.js";
import { unstorableValues } from "../../lib/json-safety.js";
import { itemLineSchema, type ItemLine } from "./schemas.js";

/** The columns of a DatasetItem that come from one line (no dataset, workspace or position); null = SQL NULL. */
export interface ItemColumns {
  externalId: string | null;
  input: unknown;
  output: unknown;
  expectedOutput: unknown;
  context: unknown;
  toolCalls: unknown;
  expectedToolCalls: unknown;
  traceSpans: unknown;
  metadata: Record<string, unknown>;
}

/** The trace spans of a line: `trace.spans`, or `trace` when it is already a list. */
function spansOf(line: ItemLine): unknown[] | null {
  if (!line.trace) return null;
  return Array.isArray(line.trace) ? line.trace : line.trace.spans;
}

/** Absent and null both mean "no value". */
const orNull = (value: unknown) => (value === undefined ? null : value);

/**
 * Turns the parsed JSON value of one items.jsonl line into DatasetItem columns. Pure. The checks
 * GraphQL variables get come first, iteratively (so a line nested 100,000 deep is answered, not a
 * stack overflow): U+0000 and lone surrogates (PostgreSQL's jsonb refuses both), non-finite
 * numbers, nesting past 64 — each at its field's path.
 * @returns the columns, or the issues (paths like `tool_calls[0].name`) when the value breaks the shape.
 */
export function itemColumnsOf(value: unknown): { columns: ItemColumns; issues: null } | { columns: null; issues: InputIssue[] } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { columns: null, issues: [{ path: "", message: "must be a JSON object" }] };
  }
  const unstorable = unstorableValues(value);
  if (unstorable.length) return { columns: null, issues: unstorable };
  const parsed = itemLineSchema.safeParse(value);
  if (!parsed.success) return { columns: null, issues: toInputIssues(parsed.error.issues) };
  const line = parsed.data;
  return {
    issues: null,
    columns: {
      externalId: line.id === undefined || line.id === null ? null : String(line.id),
      input: orNull(line.input),
      output: orNull(line.output),
      expectedOutput: orNull(line.expected_output),
      context: orNull(line.context),
      toolCalls: orNull(line.tool_calls),
      expectedToolCalls: orNull(line.expected_tool_calls),
      traceSpans: spansOf(line),
      metadata: line.metadata ?? {},
    },
  };
}
