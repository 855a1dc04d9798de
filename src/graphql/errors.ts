import { encodeGlobalID } from "@pothos/plugin-relay";
import { GraphQLError } from "graphql";
import type { AppError, ConflictRecord } from "../lib/errors.js";

/**
 * The HTTP status of an AppError answered over GraphQL: 409 for CONFLICT, 401 for
 * UNAUTHENTICATED, 503 for SERVICE_UNAVAILABLE; for LIMIT_EXCEEDED 429 when it says when to retry
 * (a rate limit or a full backlog: send the same request later) and 400 otherwise (a request too
 * large, deep or costly, or past a count or size limit: the same request will be refused again,
 * so it must change — every such limit answers 400, the document limits checked while parsing
 * included); 200 otherwise (GraphQL's own errors in the body, as validation errors).
 */
export function httpStatusOf(error: AppError): number {
  switch (error.code) {
    case "CONFLICT":
      return 409;
    case "UNAUTHENTICATED":
      return 401;
    case "SERVICE_UNAVAILABLE":
      return 503;
    case "LIMIT_EXCEEDED":
      return error.details.retryAfterSeconds === undefined ? 400 : 429;
    default:
      return 200;
  }
}

/**
 * An AppError as the GraphQLError graphql-yoga answers: `extensions` holds `code`, every field of
 * `details` and `http` (status, and `Retry-After` when the error says when to retry). `located`,
 * the GraphQLError graphql-js wrapped it in, gives the path and nodes.
 */
export function toGraphQLError(error: AppError, located?: GraphQLError): GraphQLError {
  const status = httpStatusOf(error);
  const retryAfter = error.details.retryAfterSeconds;
  const http = { status, ...(typeof retryAfter === "number" && status !== 200 ? { headers: { "Retry-After": String(retryAfter) } } : {}) };
  return new GraphQLError(error.message, {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
    originalError: error,
    extensions: { code: error.code, ...error.details, ...(Array.isArray(error.details.details) ? { details: error.details.details.map(globalIds) } : {}), http },
  });
}

/** A conflict's record with its global id (and without its type, which the id carries). */
function globalIds(record: unknown): unknown {
  if (typeof record !== "object" || record === null || !("recordType" in record)) return record;
  const { recordType, id, ...rest } = record as ConflictRecord;
  return { ...rest, id: encodeGlobalID(recordType, id) };
}
