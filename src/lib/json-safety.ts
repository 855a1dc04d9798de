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

/** Bytes of `value` as UTF-8 JSON (0 for undefined). Recurses: call it on values whose depth is bounded. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, "utf8");
}

/**
 * The field that makes a JSON object too large: the biggest of its fields, and within it (when it
 * is an object or a list) the biggest member, `levels` deep — `input`, `attributes.prompt`,
 * `input[3]` — with its size in bytes of UTF-8 JSON. Null for a scalar or an empty container.
 * Recurses through JSON.stringify: call it on values whose depth is bounded.
 */
export function largestField(value: unknown, levels = 2): { path: string; bytes: number } | null {
  const path: (string | number)[] = [];
  let current = value;
  let bytes = 0;
  for (let level = 0; level < levels && typeof current === "object" && current !== null; level++) {
    const entries: [string | number, unknown][] = Array.isArray(current) ? current.map((v, i) => [i, v]) : Object.entries(current);
    let best: { key: string | number; value: unknown; bytes: number } | null = null;
    for (const [key, v] of entries) {
      const size = jsonBytes(v);
      if (!best || size > best.bytes) best = { key, value: v, bytes: size };
    }
    if (!best) break;
    path.push(best.key);
    current = best.value;
    bytes = best.bytes;
  }
  return path.length ? { path: formatPath(path), bytes } : null;
}
