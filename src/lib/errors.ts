import { GraphQLError } from "graphql";

/** The closed list of error codes a client can see in `extensions.code`. */
export type ErrorCode = "BAD_USER_INPUT" | "NOT_FOUND" | "CONFLICT" | "UNAUTHENTICATED" | "FORBIDDEN" | "LIMIT_EXCEEDED" | "SERVICE_UNAVAILABLE";

/** One problem of a bad input: `path` names the field (`params[3].default`), `message` the rule. */
export interface InputIssue {
  path: string;
  message: string;
}

/**
 * Base of every expected error. It is a GraphQLError, so graphql-yoga shows it unmasked with
 * `extensions.code` and uses `extensions.http.status` for the HTTP status; anything else is masked.
 */
export class AppError extends GraphQLError {
  constructor(code: ErrorCode, message: string, status: number, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { code, http: { status }, ...extensions } });
    this.name = code;
  }
}

/** Invalid input: every issue at once, each naming its field. HTTP 200, as GraphQL validation errors. */
export class BadUserInputError extends AppError {
  constructor(readonly issues: InputIssue[]) {
    super("BAD_USER_INPUT", issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "), 200, { issues });
  }
}

/** The record does not exist in the caller's workspace (also for records of other workspaces). */
export class NotFoundError extends AppError {
  /** @param hint - what the caller can do instead, e.g. the valid ids (never another workspace's). */
  constructor(what: string, id: string, hint?: string) {
    super("NOT_FOUND", `${what} ${JSON.stringify(id)} not found${hint ? `: ${hint}` : ""}`, 200);
  }
}

/** The change conflicts with existing records (HTTP 409); `details` lists them. */
export class ConflictError extends AppError {
  constructor(message: string, details: unknown[] = []) {
    super("CONFLICT", message, 409, { details });
  }
}

/** No, unknown or revoked API key (HTTP 401). */
export class UnauthenticatedError extends AppError {
  constructor(message = "a valid API key is required: send Authorization: Bearer <key>") {
    super("UNAUTHENTICATED", message, 401);
  }
}

/** Authenticated but not allowed (HTTP 403). */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super("FORBIDDEN", message, 403);
  }
}

/** A size or count limit was exceeded; the message names the limit. */
export class LimitExceededError extends AppError {
  constructor(message: string) {
    super("LIMIT_EXCEEDED", message, 200);
  }
}

/**
 * A rate limit of the workspace was reached (HTTP 429, `Retry-After` in seconds, and
 * `extensions.retryAfterSeconds`): nothing was done; send again after that time.
 */
export class RateLimitedError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super("LIMIT_EXCEEDED", message, 429, { retryAfterSeconds: seconds, http: { status: 429, headers: { "Retry-After": String(seconds) } } });
  }
}

/**
 * Postgres or Redis is unavailable (HTTP 503, `Retry-After`, `extensions.retryable: true`).
 * Nothing the request asked for was committed (or, for ingest, everything was): send it again.
 */
export class ServiceUnavailableError extends AppError {
  constructor(message = "the service is briefly unavailable (database or queue); nothing was changed: retry the request", retryAfterSeconds = 2) {
    super("SERVICE_UNAVAILABLE", message, 503, { retryable: true, retryAfterSeconds, http: { status: 503, headers: { "Retry-After": String(retryAfterSeconds) } } });
  }
}

/** Turns zod-style issues (path arrays) into InputIssues with paths like `params[3].default`. */
export function toInputIssues(issues: readonly { path?: readonly PropertyKey[] | readonly unknown[]; message: string }[], prefix = ""): InputIssue[] {
  return issues.map((issue) => ({ path: formatPath([...(prefix ? [prefix] : []), ...(issue.path ?? [])]), message: issue.message }));
}

/** `["params", 3, "default"]` → `params[3].default`. */
export function formatPath(path: readonly unknown[]): string {
  return path
    .map((p) => (typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p))
    .reduce<string>((acc, p) => (typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), "");
}
