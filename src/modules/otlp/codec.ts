/**
 * OTLP/HTTP encodings of the trace service (OTLP specification, "OTLP/HTTP"): binary protobuf
 * (`application/x-protobuf`) and JSON (`application/json`, proto3 JSON mapping with the OTLP
 * exceptions: trace and span ids are hex, not base64; enums are integers; int64 may be a decimal
 * string). Both decode to the same protobufjs message, generated from the official .proto files
 * in proto/ (scripts/generate-otlp-proto.sh).
 */
import protobuf from "protobufjs/minimal.js";
import { decodeUtf8Strict, utf8Problem } from "../../lib/utf8.js";
import { google, opentelemetry } from "./generated/otlp.js";

const { ExportTraceServiceRequest, ExportTraceServiceResponse } = opentelemetry.proto.collector.trace.v1;

/** A decoded trace export request. */
export type TraceRequest = opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** The two encodings of OTLP/HTTP. */
export type OtlpEncoding = "protobuf" | "json";

/** The media type of an encoding. */
export const CONTENT_TYPES: Record<OtlpEncoding, string> = { protobuf: "application/x-protobuf", json: "application/json" };

/** The encoding of a `Content-Type` header, or null when it is neither. */
export function encodingOf(contentType: string | null): OtlpEncoding | null {
  const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (media === "application/x-protobuf" || media === "application/protobuf") return "protobuf";
  if (media === "application/json") return "json";
  return null;
}

/** A body that is not an ExportTraceServiceRequest in its encoding (answered with 400). */
export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OtlpDecodeError";
  }
}

const HEX = /^[0-9a-fA-F]*$/;

/** A hex id of OTLP/JSON as bytes; `path` names it in the error. */
function hexBytes(value: unknown, path: string): Uint8Array | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || !HEX.test(value) || value.length % 2 !== 0) {
    throw new OtlpDecodeError(`${path}: must be a hex string (OTLP/JSON ids are hex, not base64)`);
  }
  return Buffer.from(value, "hex");
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? (value.filter((v) => typeof v === "object" && v !== null) as Record<string, unknown>[]) : [];
}

/** Replaces the hex ids of OTLP/JSON by bytes in place, so protobufjs' fromObject reads them. */
function idsToBytes(body: Record<string, unknown>): void {
  list(body.resourceSpans).forEach((rs, r) =>
    list(rs.scopeSpans).forEach((ss, s) =>
      list(ss.spans).forEach((span, i) => {
        const at = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
        for (const key of ["traceId", "spanId", "parentSpanId"]) span[key] = hexBytes(span[key], `${at}.${key}`);
        list(span.links).forEach((link, l) => {
          for (const key of ["traceId", "spanId"]) link[key] = hexBytes(link[key], `${at}.links[${l}].${key}`);
        });
      }),
    ),
  );
}

/**
 * A protobuf reader whose strings must be valid UTF-8 (proto3 requires it of `string` fields, and
 * Go's and Java's parsers refuse it): protobufjs would decode bad bytes to U+FFFD and store a span
 * name or attribute the client never sent.
 */
class StrictUtf8Reader extends protobuf.Reader {
  override string(): string {
    try {
      return decodeUtf8Strict(this.bytes());
    } catch (error) {
      throw new OtlpDecodeError(`a string field is ${error instanceof Error ? error.message : "not valid UTF-8"}`);
    }
  }
}

/**
 * Decodes a request body. @throws OtlpDecodeError naming what is wrong (not protobuf, not JSON,
 * not UTF-8 — the JSON body, or a string field of protobuf —, not an object, a field of the wrong
 * type, a non-hex id).
 */
export function decodeTraceRequest(body: Uint8Array, encoding: OtlpEncoding): TraceRequest {
  if (encoding === "protobuf") {
    try {
      return ExportTraceServiceRequest.decode(new StrictUtf8Reader(body));
    } catch (error) {
      if (error instanceof OtlpDecodeError) throw error;
      throw new OtlpDecodeError(`not a protobuf ExportTraceServiceRequest: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const notUtf8 = utf8Problem(body);
  if (notUtf8) throw new OtlpDecodeError(`the body ${notUtf8.replace(": save the file as UTF-8", "")}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch (error) {
    throw new OtlpDecodeError(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new OtlpDecodeError("must be a JSON object (an ExportTraceServiceRequest)");
  idsToBytes(parsed as Record<string, unknown>);
  try {
    return ExportTraceServiceRequest.fromObject(parsed as Record<string, unknown>);
  } catch (error) {
    throw new OtlpDecodeError(`not an ExportTraceServiceRequest: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Encodes an ExportTraceServiceResponse; `partialSuccess` only when spans were rejected or there
 * is a warning (rejectedSpans 0 with an errorMessage: the specification's form of a warning).
 */
export function encodeTraceResponse(encoding: OtlpEncoding, rejected: { count: number; message: string } | null): Uint8Array {
  const message = ExportTraceServiceResponse.create(
    rejected && (rejected.count > 0 || rejected.message) ? { partialSuccess: { rejectedSpans: rejected.count, errorMessage: rejected.message } } : {},
  );
  if (encoding === "protobuf") return ExportTraceServiceResponse.encode(message).finish();
  return Buffer.from(JSON.stringify(ExportTraceServiceResponse.toObject(message, { longs: String })));
}

/** gRPC status codes used in error bodies (google.rpc.Code). */
export const RPC_CODES = { INVALID_ARGUMENT: 3, RESOURCE_EXHAUSTED: 8, UNAUTHENTICATED: 16, UNAVAILABLE: 14, INTERNAL: 13 } as const;

/** Encodes a google.rpc.Status, the body of an OTLP/HTTP error response. */
export function encodeStatus(encoding: OtlpEncoding, code: number, message: string): Uint8Array {
  const status = google.rpc.Status.create({ code, message });
  if (encoding === "protobuf") return google.rpc.Status.encode(status).finish();
  return Buffer.from(JSON.stringify({ code, message }));
}
