import { openAsBlob } from "node:fs";
import { basename } from "node:path";
import type { TypedDocumentString } from "./generated/graphql.js";

/** One problem of a bad input, as the API reports it: the field and the rule. */
export interface ApiIssue {
  path: string;
  message: string;
  /** The API's own path, when the CLI named the issue by its flag instead (`--span-kind` for `input.spanKind`). */
  apiPath?: string;
}

/**
 * An error the API answered with, or a failure to reach it. `code` is the API's
 * `extensions.code` (BAD_USER_INPUT, NOT_FOUND, CONFLICT, UNAUTHENTICATED, FORBIDDEN,
 * LIMIT_EXCEEDED, GRAPHQL_VALIDATION_FAILED, SERVICE_UNAVAILABLE: its PostgreSQL or Redis is down,
 * HTTP 503, retry), or UNAVAILABLE (no answer at the URL) / INTERNAL (a masked server error).
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly issues: ApiIssue[] = [],
    readonly details: unknown[] = [],
    readonly status = 0,
    /** Seconds to wait before sending the same request again (a rate limit or a full queue: HTTP 429 semantics); null when the error does not say. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The first field named by the error, if any. */
  get field(): string | undefined {
    return this.issues[0]?.path || undefined;
  }
}

/**
 * The codes of errors the client finds itself: the API's (BAD_USER_INPUT, NOT_FOUND, CONFLICT,
 * UNAUTHENTICATED) and WAIT_TIMEOUT, a wait the caller asked for (`--timeout`) that ended before
 * the work it follows (which goes on).
 */
export type ClientErrorCode = "BAD_USER_INPUT" | "NOT_FOUND" | "CONFLICT" | "UNAUTHENTICATED" | "WAIT_TIMEOUT";

/**
 * An error the client finds without the API's answer (a reference that names nothing, or several
 * things), with an API-like code and the field it is about, so that callers report it as they
 * report the API's own errors.
 */
export class ClientError extends ApiError {
  constructor(code: ClientErrorCode, message: string, field?: string, details: unknown[] = []) {
    super(code, message, field ? [{ path: field, message }] : [], details);
  }
}

/** Where the API is and how to call it. `fetch` is replaceable (the in-process /mcp passes yoga's). */
export interface ApiClientOptions {
  /** The service's base URL, e.g. http://127.0.0.1:4000 (the GraphQL endpoint is `<url>/graphql`). */
  url: string;
  /** An API key (sent as `Authorization: Bearer <key>`). */
  key?: string;
  /** Sent as is instead of a Bearer header built from `key` (the caller's own header on /mcp). */
  authorization?: string;
  fetch?: (request: Request) => Promise<Response>;
}

interface GraphQLBody<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; issues?: ApiIssue[]; details?: unknown[]; retryAfterSeconds?: number } }[];
}

/**
 * A typed GraphQL client over HTTP: every CLI command and MCP tool goes through it. An operation
 * is a generated document (generated/graphql.ts) that carries its result and variable types.
 */
export interface ApiClient {
  /** Runs one operation; @throws ApiError for any error the API reports (the first one). */
  request<R, V>(document: TypedDocumentString<R, V>, variables?: V): Promise<R>;
  /**
   * Runs one operation with a file upload (GraphQL multipart request): `filePath` is sent as
   * the variable at `fileVariable` (e.g. `input.file`, given as null in `variables`).
   */
  upload<R, V>(document: TypedDocumentString<R, V>, variables: V, fileVariable: string, filePath: string): Promise<R>;
}

/** Creates the API client. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const endpoint = `${options.url.replace(/\/+$/, "")}/graphql`;
  const doFetch = options.fetch ?? ((request: Request) => fetch(request));
  const authorization = options.authorization ?? (options.key ? `Bearer ${options.key}` : undefined);

  async function send<T>(init: { body: BodyInit; headers: Record<string, string> }): Promise<T> {
    const headers: Record<string, string> = { ...init.headers };
    if (authorization) headers.authorization = authorization;
    let response: Response;
    try {
      response = await doFetch(new Request(endpoint, { method: "POST", headers, body: init.body }));
    } catch (error) {
      const inner = (error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
      // fetch says only "fetch failed": the reason is its cause (ECONNREFUSED, or "bad port" for a port fetch blocks).
      const cause = inner?.code ?? inner?.errors?.[0]?.code ?? inner?.message ?? (error as Error).message;
      if (cause === "bad port") {
        // The Fetch standard blocks some ports (4190 among them) whatever answers there.
        throw new ApiError("UNAVAILABLE", `cannot reach the Oodle API at ${endpoint}: Node's fetch refuses port ${new URL(endpoint).port} (a port the Fetch standard blocks); start the service on another PORT`);
      }
      throw new ApiError("UNAVAILABLE", `cannot reach the Oodle API at ${endpoint} (${cause}): is the service running? Set OODLE_API_URL or --url`);
    }
    let body: GraphQLBody<T>;
    try {
      body = (await response.json()) as GraphQLBody<T>;
    } catch {
      throw new ApiError(response.status === 401 ? "UNAUTHENTICATED" : "INTERNAL", `the API answered HTTP ${response.status} without a GraphQL body`, [], [], response.status);
    }
    const first = body.errors?.[0];
    if (first) {
      const code = first.extensions?.code ?? (response.status === 401 ? "UNAUTHENTICATED" : "INTERNAL");
      const known = ["BAD_USER_INPUT", "NOT_FOUND", "CONFLICT", "UNAUTHENTICATED", "FORBIDDEN", "LIMIT_EXCEEDED", "GRAPHQL_VALIDATION_FAILED", "SERVICE_UNAVAILABLE"];
      const retry = first.extensions?.retryAfterSeconds;
      throw new ApiError(known.includes(code) ? code : "INTERNAL", first.message, first.extensions?.issues ?? [], first.extensions?.details ?? [], response.status, typeof retry === "number" ? retry : null);
    }
    if (!body.data) throw new ApiError("INTERNAL", `the API answered HTTP ${response.status} with no data`, [], [], response.status);
    return body.data;
  }

  return {
    request: (document, variables) =>
      send({ body: JSON.stringify({ query: document.toString(), variables: variables ?? {} }), headers: { "content-type": "application/json" } }),
    async upload(document, variables, fileVariable, filePath) {
      const form = new FormData();
      form.set("operations", JSON.stringify({ query: document.toString(), variables }));
      form.set("map", JSON.stringify({ "0": [`variables.${fileVariable}`] }));
      form.set("0", new File([await openAsBlob(filePath)], basename(filePath), { type: "application/x-ndjson" }));
      return send({ body: form, headers: {} });
    },
  };
}
