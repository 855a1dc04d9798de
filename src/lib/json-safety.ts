import { formatPath, type InputIssue } from "./errors.js";

/** JSON deeper than this is refused (no legitimate input of this API nests further). */
export const MAX_JSON_DEPTH = 64;

/** A lone UTF-16 surrogate: half of a pair without its other half (not Unicode; Postgres would get U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function stringProblem(text: string, nul: boolean): string | null {
  if (nul && text.includes("\u0000")) return "must not contain the character U+0000 (PostgreSQL cannot store it)";
  if (LONE_SURROGATE.test(text)) return "contains a lone UTF-16 surrogate (not valid Unicode; it would be stored changed)";
  return null;
}

/**
 * The values of a parsed JSON input that cannot be stored as sent, each with its path: a lone
 * surrogate in a string or key (stored as U+FFFD otherwise), a number that is not finite (`1e400`
 * parses to Infinity and would be stored as null), nesting deeper than {@link MAX_JSON_DEPTH}, and
 * U+0000 unless `nul: false`. Iterative, so a document nested 100,000 deep is answered, not a
 * stack overflow. At most `limit` problems are listed.
 * @param skip - paths (as path arrays) whose subtrees are checked elsewhere.
 */
export function unstorableValues(value: unknown, options: { prefix?: (string | number)[]; nul?: boolean; limit?: number; skip?: (path: readonly (string | number)[]) => boolean } = {}): InputIssue[] {
  const { nul = true, limit = 20 } = options;
  const issues: InputIssue[] = [];
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: options.prefix ?? [] }];
  while (stack.length > 0 && issues.length < limit) {
    const { value: current, path } = stack.pop()!;
    if (options.skip?.(path)) continue;
    if (typeof current === "string") {
      const problem = stringProblem(current, nul);
      if (problem) issues.push({ path: formatPath(path), message: problem });
    } else if (typeof current === "number") {
      if (!Number.isFinite(current)) issues.push({ path: formatPath(path), message: "must be a finite number (this one is too large to store)" });
    } else if (typeof current === "object" && current !== null) {
      if (path.length - (options.prefix?.length ?? 0) >= MAX_JSON_DEPTH) {
        issues.push({ path: formatPath(path), message: `is nested more than ${MAX_JSON_DEPTH} levels deep` });
        continue;
      }
      if (Array.isArray(current)) {
        for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: [...path, i] });
      } else {
        for (const [key, v] of Object.entries(current)) {
          const problem = stringProblem(key, nul);
          if (problem) issues.push({ path: formatPath([...path, key]), message: `key: ${problem}` });
          stack.push({ value: v, path: [...path, key] });
        }
      }
    }
  }
  return issues;
}
