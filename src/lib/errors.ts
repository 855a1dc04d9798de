/**
 * The closed list of error codes a client can see (GraphQL `extensions.code`, the CLI's
 * `error.code`, an MCP result's `error.code`).
 */
export type ErrorCode = "BAD_USER_INPUT" | "NOT_FOUND" | "CONFLICT" | "UNAUTHENTICATED" | "LIMIT_EXCEEDED" | "SERVICE_UNAVAILABLE";

/** One problem of a bad input: `path` names the field (`params[3].default`), `message` the rule. */
export interface InputIssue {
  path: string;
  message: string;
}

/**
 * Base of every expected error, transport-neutral: a `code` from {@link ErrorCode} and `details`,
 * the structured facts a client can act on (`issues`, the conflicting records as `details`,
 * `retryAfterSeconds`, `retryable`). Each transport maps it: GraphQL to `extensions` and an HTTP
 * status (src/graphql/errors.ts), the CLI to an exit code, MCP to an `isError` result. Any other
 * error is unexpected: logged and masked.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = code;
  }
}

/** Invalid input: every issue at once, each naming its field. HTTP 200, as GraphQL validation errors. */
export class BadUserInputError extends AppError {
  constructor(readonly issues: InputIssue[]) {
    super("BAD_USER_INPUT", issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "), { issues });
  }
}

/** The record does not exist in the caller's workspace (also for records of other workspaces). */
export class NotFoundError extends AppError {
  /** @param hint - what the caller can do instead, e.g. the valid ids (never another workspace's). */
  constructor(what: string, id: string, hint?: string) {
    super("NOT_FOUND", `${what} ${JSON.stringify(id)} not found${hint ? `: ${hint}` : ""}`);
  }
}

/**
 * A record a conflict names: its type and raw id (each transport spells the id its own way:
 * GraphQL as a global id), and what else the client needs to know about it.
 */
export interface ConflictRecord {
  recordType: "Evaluator" | "Template" | "Backfill";
  id: string;
  [field: string]: unknown;
}

/** The change conflicts with existing records (HTTP 409 over GraphQL); `details.details` lists them. */
export class ConflictError extends AppError {
  /** @param conflicts - the records in the way: a {@link ConflictRecord} gets its id encoded by each transport; other facts pass as they are. */
  constructor(message: string, conflicts: readonly (ConflictRecord | Readonly<Record<string, unknown>>)[] = []) {
    super("CONFLICT", message, { details: conflicts });
  }
}

/** No, unknown or revoked API key (HTTP 401 over GraphQL). */
export class UnauthenticatedError extends AppError {
  constructor(message = "a valid API key is required: send Authorization: Bearer <key>") {
    super("UNAUTHENTICATED", message);
  }
}

/**
 * A size, count or cost limit was exceeded (HTTP 400 over GraphQL: the same request will be
 * refused again); the message names the limit.
 * @param details - facts a client can act on, e.g. `{ cost, limit }` of a read refused for its cost.
 */
export class LimitExceededError extends AppError {
  constructor(message: string, details: Readonly<Record<string, unknown>> = {}) {
    super("LIMIT_EXCEEDED", message, details);
  }
}

/**
 * A rate limit of the workspace was reached (`details.retryAfterSeconds`, whole seconds, at
 * least 1; over HTTP 429 with `Retry-After`): nothing was done; send again after that time.
 */
export class RateLimitedError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super("LIMIT_EXCEEDED", message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

/**
 * Postgres or Redis is unavailable (`details.retryable: true`, `details.retryAfterSeconds`; over
 * HTTP 503 with `Retry-After`). Nothing the request asked for was committed (or, for ingest,
 * everything was): send it again.
 */
export class ServiceUnavailableError extends AppError {
  constructor(message = "the service is briefly unavailable (database or queue); nothing was changed: retry the request", retryAfterSeconds = 2) {
    super("SERVICE_UNAVAILABLE", message, { retryable: true, retryAfterSeconds });
  }
}

/**
 * Turns zod-style issues (path arrays) into InputIssues with paths like `params[3].default`. An
 * unknown key (zod's `unrecognized_keys`) becomes one issue per key, at the key's own path
 * (`document.foo: unknown field`), so the path is never the bare object.
 */
export function toInputIssues(
  issues: readonly { path?: readonly PropertyKey[] | readonly unknown[]; message: string; code?: string; keys?: readonly string[] }[],
  prefix = "",
): InputIssue[] {
  return issues.flatMap((issue) => {
    const at = [...(prefix ? [prefix] : []), ...(issue.path ?? [])];
    if (issue.code === "unrecognized_keys" && issue.keys?.length) return issue.keys.map((key) => ({ path: formatPath([...at, key]), message: "unknown field" }));
    return [{ path: formatPath(at), message: issue.message }];
  });
}

/** `["params", 3, "default"]` → `params[3].default`. */
export function formatPath(path: readonly unknown[]): string {
  return path
    .map((p) => (typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p))
    .reduce<string>((acc, p) => (typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), "");
}
