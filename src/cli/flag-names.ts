import type { Command } from "commander";
import { ApiError } from "../api-client/http.js";

/** An API field path the flag rule reads: a top-level argument, or one field of `input` / `filter`. */
const FLAG_PATH = /^(?:input\.|filter\.)?(\w+)$/;

/**
 * The flag (or argument) of `command` that gave the API field at `path`, or null when none did:
 * first `fields` (the command's own names for what no flag spells alike, e.g. `sourceCode` →
 * `FILE`), then the option whose name is the field's (`spanKind` → `--span-kind`), or is the
 * field's without an `Id`/`Ids`/`Name` ending (`evaluatorIds` → `--evaluator`).
 */
export function flagOf(command: Command, path: string, fields: Record<string, string> = {}): string | null {
  if (fields[path]) return fields[path]!;
  const field = FLAG_PATH.exec(path)?.[1];
  if (!field) return null;
  if (fields[field]) return fields[field]!;
  const names = [field, field.replace(/(Ids|Id|Name)$/, "")];
  const option = command.options.find((o) => names.includes(o.attributeName()) && o.long);
  return option ? option.long! : null;
}

/**
 * The API's error with each issue's path given as the command's flag (`input.spanKind` →
 * `--span-kind`), so the message names what the user typed; the API's path stays in `apiPath`.
 * Any other error is returned as it is.
 */
export function withFlagNames(error: unknown, command: Command, fields: Record<string, string> = {}): unknown {
  if (!(error instanceof ApiError) || !error.issues.length) return error;
  let changed = false;
  const issues = error.issues.map((issue) => {
    const flag = issue.path ? flagOf(command, issue.path, fields) : null;
    if (!flag || flag === issue.path) return issue;
    changed = true;
    return { ...issue, path: flag, apiPath: issue.path };
  });
  if (!changed) return error;
  const message = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  return new ApiError(error.code, message, issues, error.details, error.status);
}
