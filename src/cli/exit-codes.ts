import { ClientError } from "../api-client/http.js";

/**
 * The exit codes of `oodle` (documented in `oodle --help` and the README):
 * 0 success; 1 a server error (code UNAVAILABLE: nothing answers at the URL; SERVICE_UNAVAILABLE:
 * the service answered 503, its database or Redis is down; INTERNAL: an error it masked); 2 bad input
 * (a flag, a file or a field the API refused; also a template with problems on `validate`);
 * 3 not found; 4 conflict (HTTP 409: e.g. evaluators hold values the new settings refuse, or the
 * server's template version moved since the pull); 5 authentication (no, unknown or revoked key);
 * 6 the evaluator ran but did not end ok (`try`, `templates test`: user_error, timeout, …);
 * 7 WAIT_TIMEOUT: `--timeout` ended the wait before the experiment or backfill finished (it goes on).
 */
export const EXIT = {
  ok: 0,
  server: 1,
  badInput: 2,
  notFound: 3,
  conflict: 4,
  auth: 5,
  evaluationFailed: 6,
  waitTimeout: 7,
  /** LIMIT_EXCEEDED with a retry time (HTTP 429: a rate limit, a full queue, tryCode's concurrency): send the same command again after it. */
  retryLater: 8,
} as const;

/** The help text listing the exit codes. */
export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  server error: UNAVAILABLE (nothing answers at the URL), SERVICE_UNAVAILABLE (its database or Redis is down; retry), INTERNAL
  2  bad input (the message names the field)
  3  not found
  4  conflict (HTTP 409; lists the evaluators that block the change)
  5  authentication (no, unknown or revoked API key)
  6  the evaluator ran but did not end ok (try, templates test)
  7  WAIT_TIMEOUT: still running when --timeout ended the wait (experiments run, backfills create --wait); it goes on
  8  LIMIT_EXCEEDED with a retry time (HTTP 429: rate limit, full queue, tryCode concurrency): the message says "retry in N s"`;

/** The exit code of an API error code. */
export function exitCodeOf(code: string): number {
  switch (code) {
    case "BAD_USER_INPUT":
    case "LIMIT_EXCEEDED":
    case "GRAPHQL_VALIDATION_FAILED":
      return EXIT.badInput;
    case "NOT_FOUND":
      return EXIT.notFound;
    case "CONFLICT":
      return EXIT.conflict;
    case "UNAUTHENTICATED":
    case "FORBIDDEN":
      return EXIT.auth;
    case "WAIT_TIMEOUT":
      return EXIT.waitTimeout;
    default:
      return EXIT.server;
  }
}

/** An error of the CLI itself (bad flag, unreadable file) with its API-like code and field. */
export class CliError extends ClientError {}
