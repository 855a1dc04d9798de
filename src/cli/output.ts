import { ApiError } from "../api-client/http.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";

/** Where a command writes (replaceable in tests; the process streams by default). */
export interface Output {
  json: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stderr is a terminal (progress bars), else plain lines. */
  tty: boolean;
}

/** The process's output, in JSON mode when `--json` was given. */
export function processOutput(json: boolean): Output {
  return {
    json,
    out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
    tty: Boolean(process.stderr.isTTY),
  };
}

/** A cell as text: JSON for objects, "-" for null. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "string") return value;
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(3);
  return JSON.stringify(value);
}

/** A plain text table: a header row, then one row per record, columns padded to their widest cell. */
export function table(columns: string[], rows: unknown[][]): string {
  const text = rows.map((row) => row.map(cell));
  const widths = columns.map((c, i) => Math.max(c.length, ...text.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...text.map(line)].join("\n");
}

/** `key: value` lines, keys padded. */
export function fields(entries: [string, unknown][]): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${cell(v)}`).join("\n");
}

/** Prints `data` as JSON with --json, else the human text. */
export function emit(output: Output, data: unknown, human: () => string): void {
  output.out(output.json ? JSON.stringify(data, null, 2) : human());
}

/**
 * Prints an error (as `{"error": {...}}` on stderr with --json, else text naming the field and,
 * for a conflict, each evaluator that blocks it) and returns its exit code.
 */
export function reportError(output: Output, error: unknown): number {
  if (!(error instanceof ApiError)) {
    const message = error instanceof Error ? error.message : String(error);
    output.err(output.json ? JSON.stringify({ error: { code: "INTERNAL", message } }) : `error: ${message}`);
    return exitCodeOf("INTERNAL");
  }
  // A refusal that says when to retry (HTTP 429) is not bad input: exit 8, with the wait.
  const exit = error.code === "LIMIT_EXCEEDED" && error.retryAfterSeconds !== null ? EXIT.retryLater : exitCodeOf(error.code);
  if (output.json) {
    output.err(JSON.stringify({ error: { code: error.code, message: error.message, field: error.field ?? null, issues: error.issues, details: error.details, retryAfterSeconds: error.retryAfterSeconds } }, null, 2));
    return exit;
  }
  const lines = [`error (${error.code}): ${error.issues.length ? "" : error.message}`.trimEnd()];
  for (const issue of error.issues) lines.push(`  ${issue.path || "(input)"}: ${issue.message}`);
  for (const detail of error.details) {
    const d = detail as { evaluator?: string; reason?: string };
    lines.push(d.evaluator ? `  blocked by evaluator "${d.evaluator}"${d.reason ? `: ${d.reason}` : ""}` : `  ${JSON.stringify(detail)}`);
  }
  if (error.retryAfterSeconds !== null && !/retry in \d+ s/.test(error.message)) lines.push(`  retry in ${error.retryAfterSeconds} s`);
  output.err(lines.join("\n"));
  return exit;
}
