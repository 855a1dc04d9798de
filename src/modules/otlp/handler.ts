/**
 * `POST /v1/traces`: OTLP/HTTP trace ingestion (OTLP specification 1.x, "OTLP/HTTP"). The spans
 * go through the same `ingestSpans` as the GraphQL mutation (validation, idempotent storage,
 * matching, sampling, queueing, exactly-once runs), in the caller's workspace (the same bearer
 * key). Spans that cannot be stored are counted in `partialSuccess.rejectedSpans` and named in
 * `errorMessage` with every problem; so is a span whose trace and span id an earlier span of the
 * same body already has (only the first is stored). Attributes that cannot be stored as sent (an
 * empty key, a key repeated in one list) are named in `errorMessage` too, as warnings of a span
 * that was stored; every other key (`__proto__`, `constructor`) is stored as an ordinary key.
 *
 * Rate: the same per-workspace ingest budget as `ingestSpans`, taken the same way: one token per
 * started {@link MAX_SPANS_PER_BATCH} spans (an `ingestSpans` call takes one token and at most
 * 1,000 spans), so 28,999 spans in one export take 29 tokens, as 29 calls of `ingestSpans` would.
 * One token is taken before the body is read (a spent budget reads nothing); the rest once the
 * spans are counted, before any is stored.
 *
 * Responses (OTLP clients retry 429, 502, 503 and 504 only):
 *  - 200 ExportTraceServiceResponse, in the request's encoding;
 *  - 400 google.rpc.Status for a body that cannot be decoded; 401 for a missing or unknown key;
 *  - 413 for a body over the cap, compressed or after decompression (not retryable);
 *  - 415 for another content type or content encoding; 405 for another method;
 *  - 429 with Retry-After past the workspace's ingest rate (the budget `ingestSpans` uses too),
 *    nothing stored;
 *  - 503 with Retry-After when PostgreSQL or Redis does not answer (load shedding, outage).
 */
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import type { Logger } from "../../lib/logger.js";
import { AppError, LimitExceededError, RateLimitedError, type InputIssue } from "../../lib/errors.js";
import type { SpanService } from "../spans/service.js";
import { MAX_SPANS_PER_BATCH } from "../spans/schemas.js";
import type { Principal } from "../../lib/principal.js";
import { CONTENT_TYPES, decodeTraceRequest, encodeStatus, encodeTraceResponse, encodingOf, OtlpDecodeError, RPC_CODES, type OtlpEncoding, type TraceRequest } from "./codec.js";
import type { opentelemetry } from "./generated/otlp.js";
import { mapSpan, positionPath, type SpanPosition } from "./mapping.js";
import { hex } from "./values.js";

const gunzipAsync = promisify(gunzip);

/** The default cap of a request body, in bytes, compressed and after decompression. */
export const DEFAULT_OTLP_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Seconds a client is asked to wait before retrying when the service sheds load. */
export const RETRY_AFTER_SECONDS = 5;

/** What the handler needs. */
export interface OtlpDeps {
  spans: Pick<SpanService, "ingestSpans">;
  authenticate(secret: string): Promise<Principal | null>;
  /** True when PostgreSQL and Redis answer (an unexpected error then is a 500, else a 503). */
  healthy(): Promise<boolean>;
  logger: Logger;
  maxBodyBytes?: number;
  /** Takes `points` (default 1) ingest tokens of the workspace's rate: null when they fit, else seconds to wait. */
  rateLimit?(workspaceId: string, points?: number): Promise<number | null>;
  /** Called with the counts of each export (metrics). */
  onExport?(counts: { accepted: number; rejected: number }): void;
}

class TooLargeError extends Error {}

/** Reads a body of at most `max` bytes (Content-Length checked first, then while streaming). */
async function readBody(request: Request, max: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > max) throw new TooLargeError(`the body is ${declared} bytes; at most ${max} are accepted`);
  if (!request.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new TooLargeError(`the body is over ${max} bytes`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

/** Decompresses per Content-Encoding, with the same cap on the result (a zip bomb is a 413). */
async function decompress(body: Buffer, contentEncoding: string | null, max: number): Promise<Buffer> {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return body;
  if (encoding !== "gzip") throw new UnsupportedError(`Content-Encoding ${JSON.stringify(encoding)} is not supported (gzip or identity)`);
  try {
    return await gunzipAsync(body, { maxOutputLength: max });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw new TooLargeError(`the body is over ${max} bytes after decompression`);
    throw new OtlpDecodeError(`not gzip: ${error instanceof Error ? error.message : String(error)}`);
  }
}

class UnsupportedError extends Error {}

function bearerSecret(request: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1] ?? null;
}

/** One rejected span, for the error message: where, which span, every problem. */
function describe(position: SpanPosition, spanId: string, name: string, issues: InputIssue[]): string {
  const what = [spanId ? `span ${spanId}` : "", name ? JSON.stringify(name) : ""].filter(Boolean).join(" ");
  const problems = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join(", ");
  return `${positionPath(position)}${what ? ` (${what})` : ""}: ${problems}`;
}

/** The ingest tokens an export of `spans` spans takes: one per started 1,000, as many as the `ingestSpans` calls it is stored in (at least 1). */
export function ingestTokensOf(spans: number): number {
  return Math.max(1, Math.ceil(spans / MAX_SPANS_PER_BATCH));
}

/** One span of a decoded request with its position, resource spans and scope spans. */
interface PlacedSpan {
  position: SpanPosition;
  span: opentelemetry.proto.trace.v1.ISpan;
  rs: opentelemetry.proto.trace.v1.IResourceSpans;
  ss: opentelemetry.proto.trace.v1.IScopeSpans;
}

/** The spans of a decoded request, in order, with their position. */
function spansOf(request: TraceRequest): PlacedSpan[] {
  const out: PlacedSpan[] = [];
  (request.resourceSpans ?? []).forEach((rs, r) =>
    (rs.scopeSpans ?? []).forEach((ss, s) => (ss.spans ?? []).forEach((span, i) => out.push({ position: { resource: r, scope: s, span: i }, span, rs, ss }))),
  );
  return out;
}

/** Creates the `/v1/traces` handler: a Fetch API request in, a response out. */
export function createOtlpTraceHandler(deps: OtlpDeps) {
  const max = deps.maxBodyBytes ?? DEFAULT_OTLP_MAX_BODY_BYTES;

  function reply(status: number, encoding: OtlpEncoding, body: Uint8Array, headers: Record<string, string> = {}): Response {
    return new Response(new Uint8Array(body), { status, headers: { "content-type": CONTENT_TYPES[encoding], ...headers } });
  }
  const error = (status: number, encoding: OtlpEncoding, code: number, message: string, headers: Record<string, string> = {}) =>
    reply(status, encoding, encodeStatus(encoding, code, message), headers);

  /**
   * Stores the decoded request's spans; returns how many were rejected and why (with the
   * warnings of stored spans: attributes that could not be kept as sent).
   */
  async function ingest(principal: Principal, spans: readonly PlacedSpan[]): Promise<{ count: number; message: string; accepted: number }> {
    const inputs: { position: SpanPosition; input: Record<string, unknown> }[] = [];
    const reasons: string[] = [];
    const warnings = new Set<string>();
    const firstAt = new Map<string, SpanPosition>();
    for (const { position, span, rs, ss } of spans) {
      const mapped = mapSpan(span, rs.resource, ss.scope, rs.schemaUrl ?? "", ss.schemaUrl ?? "");
      if (!("input" in mapped)) {
        reasons.push(describe(position, hex(span.spanId), span.name ?? "", mapped.issues));
        continue;
      }
      // Spans are stored once per trace and span id: a second one in the same body would be dropped unseen.
      const key = `${String(mapped.input.traceId)}/${String(mapped.input.spanId)}`;
      const first = firstAt.get(key);
      if (first) {
        reasons.push(describe(position, String(mapped.input.spanId), String(mapped.input.name ?? ""), [{ path: "spanId", message: `repeats the trace and span id of ${positionPath(first)} in this request; only the first is stored` }]));
        continue;
      }
      firstAt.set(key, position);
      for (const d of mapped.dropped) {
        // Resource and scope attributes are shared by their spans: named once.
        const where = d.path.startsWith("resource.") ? `resourceSpans[${position.resource}].${d.path}` : d.path.startsWith("scope.") ? `resourceSpans[${position.resource}].scopeSpans[${position.scope}].${d.path}` : `${positionPath(position)}.${d.path}`;
        warnings.add(`${where}: attribute ${JSON.stringify(d.key)} not stored: ${d.reason}`);
      }
      inputs.push({ position, input: mapped.input });
    }
    let accepted = 0;
    // ingestSpans takes at most 1,000 spans a call: a larger export is stored in several batches.
    for (let start = 0; start < inputs.length; start += MAX_SPANS_PER_BATCH) {
      const batch = inputs.slice(start, start + MAX_SPANS_PER_BATCH);
      const result = await deps.spans.ingestSpans(principal, batch.map((b) => b.input));
      accepted += result.spans.length;
      for (const { index, issues } of result.rejected) {
        const { position, input } = batch[index]!;
        reasons.push(describe(position, String(input.spanId ?? ""), String(input.name ?? ""), issues));
      }
    }
    const parts = [reasons.length ? `${reasons.length} span(s) rejected: ${reasons.join("; ")}` : "", warnings.size ? `${warnings.size} attribute(s) not stored as sent: ${[...warnings].join("; ")}` : ""];
    return { count: reasons.length, message: parts.filter(Boolean).join(". "), accepted };
  }

  return async function handleTraces(request: Request): Promise<Response> {
    const encoding = encodingOf(request.headers.get("content-type"));
    const answerIn: OtlpEncoding = encoding ?? "json";
    if (request.method !== "POST") return error(405, answerIn, RPC_CODES.INVALID_ARGUMENT, "use POST", { allow: "POST" });
    if (!encoding) return error(415, "json", RPC_CODES.INVALID_ARGUMENT, "Content-Type must be application/x-protobuf or application/json");
    const secret = bearerSecret(request);
    try {
      const principal = secret ? await deps.authenticate(secret) : null;
      if (!principal) return error(401, encoding, RPC_CODES.UNAUTHENTICATED, secret ? "the API key is unknown or revoked" : "a valid API key is required: send Authorization: Bearer <key>");
      const wait = await deps.rateLimit?.(principal.workspaceId);
      if (wait) return error(429, encoding, RPC_CODES.RESOURCE_EXHAUSTED, `rate limit: this workspace's ingest calls per minute are used up; retry in ${wait} s`, { "retry-after": String(wait) });
      const raw = await readBody(request, max);
      const body = await decompress(raw, request.headers.get("content-encoding"), max);
      const spans = spansOf(decodeTraceRequest(body, encoding));
      // The tokens past the first (taken above), before anything is stored: one per started 1,000 spans.
      const more = ingestTokensOf(spans.length) - 1;
      const later = more > 0 ? await deps.rateLimit?.(principal.workspaceId, more) : null;
      if (later) {
        return error(429, encoding, RPC_CODES.RESOURCE_EXHAUSTED, `rate limit: ${spans.length} spans take ${more + 1} ingest tokens (one per started ${MAX_SPANS_PER_BATCH}, as ingestSpans calls), more than this workspace has left this minute; nothing was stored; retry in ${later} s or send smaller exports`, { "retry-after": String(later) });
      }
      const rejected = await ingest(principal, spans);
      deps.onExport?.({ accepted: rejected.accepted, rejected: rejected.count });
      return reply(200, encoding, encodeTraceResponse(encoding, rejected));
    } catch (caught) {
      if (caught instanceof TooLargeError) return error(413, encoding, RPC_CODES.RESOURCE_EXHAUSTED, caught.message);
      if (caught instanceof LimitExceededError) return error(413, encoding, RPC_CODES.RESOURCE_EXHAUSTED, caught.message);
      if (caught instanceof OtlpDecodeError) return error(400, encoding, RPC_CODES.INVALID_ARGUMENT, caught.message);
      if (caught instanceof UnsupportedError) return error(415, encoding, RPC_CODES.INVALID_ARGUMENT, caught.message);
      if (caught instanceof RateLimitedError) {
        const wait = String((caught.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds ?? RETRY_AFTER_SECONDS);
        return error(429, encoding, RPC_CODES.RESOURCE_EXHAUSTED, caught.message, { "retry-after": wait });
      }
      if (caught instanceof AppError) return error(400, encoding, RPC_CODES.INVALID_ARGUMENT, caught.message);
      const healthy = await deps.healthy().catch(() => false);
      deps.logger.error({ err: caught, healthy }, "OTLP trace export failed (masked)");
      if (!healthy) return error(503, encoding, RPC_CODES.UNAVAILABLE, "the service is unavailable; retry later", { "retry-after": String(RETRY_AFTER_SECONDS) });
      return error(500, encoding, RPC_CODES.INTERNAL, "unexpected error");
    }
  };
}
