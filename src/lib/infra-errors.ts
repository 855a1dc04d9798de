/**
 * Infrastructure faults: Postgres or Redis unreachable, a connection cut, a server restarting.
 * They are nobody's input error and pass once the dependency is back, so jobs retry them with
 * backoff for as long as the outage lasts (without using up the attempts kept for sandbox
 * faults) and the API answers them as a retryable SERVICE_UNAVAILABLE instead of a masked error.
 */

/** Node socket error codes of a lost or refused connection. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ECONNABORTED"]);

/**
 * Prisma codes of an unreachable or overloaded database: P1001 can't reach, P1002 timed out,
 * P1008 operation timed out, P1017 server closed the connection, P2024 pool timeout, P2037 too
 * many connections, P2034 write conflict/deadlock (retry the transaction), P2028 a transaction that
 * could not start (or ran out of time) on an overloaded pool.
 */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028", "P2034", "P2037"]);

/** Driver adapter error kinds of the same (`@prisma/driver-adapter-utils`). */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "TransactionWriteConflict", "DatabaseDoesNotExist"]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (admin shutdown, crash
 * shutdown, cannot connect now), 53300 too many connections, 40001/40P01 serialization failure
 * and deadlock (the transaction may simply be run again).
 */
function isRetryableSqlState(code: string): boolean {
  return /^08/.test(code) || ["57P01", "57P02", "57P03", "53300", "40001", "40P01"].includes(code);
}

/** Messages of pg, ioredis and BullMQ for the same faults (they carry no code). */
const MESSAGES =
  /Connection terminated|Connection is closed|Client has encountered a connection error|connect ECONNREFUSED|Can't reach database server|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery mode)|Stream isn't writeable|max retries per request|Reached the max retries|Server has closed the connection|timeout exceeded when trying to connect|Connection lost|LOADING Redis is loading|READONLY You can't write against a read only replica|Missing lock for job|Missing key for job|deadlock detected|could not serialize access/i;

/** True when `error` (or one of its causes) is an infrastructure fault (see the top of this file). */
export function isInfrastructureError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === "object"; depth++) {
    const e = current as { code?: unknown; name?: unknown; message?: unknown; kind?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } }; cause?: unknown; originalError?: unknown };
    if (typeof e.code === "string" && (SOCKET_CODES.has(e.code) || PRISMA_CODES.has(e.code) || isRetryableSqlState(e.code))) return true;
    if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
    const adapter = e.meta?.driverAdapterError?.cause;
    if (adapter && typeof adapter.kind === "string" && ADAPTER_KINDS.has(adapter.kind)) return true;
    if (adapter && typeof adapter.originalCode === "string" && isRetryableSqlState(adapter.originalCode)) return true;
    if (e.name === "MaxRetriesPerRequestError") return true;
    if (typeof e.message === "string" && MESSAGES.test(e.message)) return true;
    current = e.cause ?? e.originalError;
  }
  return false;
}

/**
 * The delay before retry `n` (0-based) of an infrastructure fault: exponential from 500 ms,
 * capped at 15 s, with ±20% jitter so that workers do not retry in step.
 */
export function infrastructureBackoffMs(n: number): number {
  const base = Math.min(15_000, 500 * 2 ** Math.min(n, 10));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** True when `error` is a deadlock or serialization failure (40P01, 40001): the statement or transaction may simply run again. */
export function isConflictError(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${JSON.stringify((error as { meta?: unknown }).meta ?? {})}` : String(error);
  return /40P01|40001|deadlock detected|could not serialize access/.test(text);
}
