/**
 * One OTLP span as an `ingestSpans` span. The conversation stays in the attributes where the
 * conventions put it (OpenTelemetry GenAI `gen_ai.input.messages` / `gen_ai.output.messages`,
 * the deprecated `gen_ai.prompt` / `gen_ai.completion`, OpenLLMetry's indexed
 * `gen_ai.prompt.{i}.*`, OpenInference's `llm.input_messages.{i}.message.*` and `input.value`):
 * the spans module reads them the same way for both entry points (modules/spans/genai.ts), so a
 * span sent over OTLP and the same span sent to `ingestSpans` give the same sample document and
 * the same scores. What only OTLP has is mapped here:
 *  - the GenAI event form: the attributes of a `gen_ai.client.inference.operation.details`
 *    event (messages, system instructions, tool definitions) are lifted onto the span, where the
 *    span does not have them already (and likewise `gen_ai.prompt` / `gen_ai.completion` of
 *    the deprecated `gen_ai.content.prompt` / `gen_ai.content.completion` events);
 *  - the span's resource and instrumentation scope, OTel span kind, trace state, events and
 *    links are kept in `metadata.otel`; status codes map to unset / ok / error;
 *  - what the sender dropped before export (its SDK's limits: 128 attributes per span by default)
 *    is kept as `metadata.otel.droppedAttributesCount`, `droppedEventsCount`, `droppedLinksCount`
 *    and each event's and link's `droppedAttributesCount`, when not 0 (spans/incomplete.ts reads them).
 * Pure functions.
 */
import type { InputIssue } from "../../lib/errors.js";
import type { opentelemetry } from "./generated/otlp.js";
import { attributesToObject, hex, nanosToDate, type DroppedAttribute, type Int64 } from "./values.js";

type OtlpSpan = opentelemetry.proto.trace.v1.ISpan;
type Resource = opentelemetry.proto.resource.v1.IResource;
type Scope = opentelemetry.proto.common.v1.IInstrumentationScope;

/** The event of the GenAI conventions that carries a call's content when spans do not. */
export const OPERATION_DETAILS_EVENT = "gen_ai.client.inference.operation.details";

/** Events whose attributes are lifted onto their span, and which attributes. */
export const LIFTED_EVENT_ATTRIBUTES: Record<string, readonly string[]> = {
  [OPERATION_DETAILS_EVENT]: ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions", "gen_ai.tool.definitions"],
  "gen_ai.content.prompt": ["gen_ai.prompt"],
  "gen_ai.content.completion": ["gen_ai.completion"],
};

const SPAN_KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"] as const;
const STATUS = ["unset", "ok", "error"] as const;

/** Where a span came from in the request: resource, scope and span position, for error messages. */
export interface SpanPosition {
  resource: number;
  scope: number;
  span: number;
}

/** `resourceSpans[r].scopeSpans[s].spans[i]`. */
export function positionPath(p: SpanPosition): string {
  return `resourceSpans[${p.resource}].scopeSpans[${p.scope}].spans[${p.span}]`;
}

function validId(bytes: Uint8Array | null | undefined, length: number): boolean {
  return !!bytes && bytes.length === length && bytes.some((b) => b !== 0);
}

/**
 * Maps one span. Returns the ingestSpans input with the attributes it could not keep as sent
 * (`dropped`: empty or repeated keys, by path; every other key, `__proto__` included, is kept as
 * an ordinary key), or the issues that make it unstorable (ids of the wrong length or all zero:
 * OTLP calls them invalid); every other rule is ingestSpans' own.
 */
export function mapSpan(
  span: OtlpSpan,
  resource: Resource | null | undefined,
  scope: Scope | null | undefined,
  resourceSchemaUrl = "",
  scopeSchemaUrl = "",
): { input: Record<string, unknown>; dropped: DroppedAttribute[] } | { issues: InputIssue[] } {
  const issues: InputIssue[] = [];
  if (!validId(span.traceId, 16)) issues.push({ path: "traceId", message: "must be 16 bytes (32 hex digits), not all zero" });
  if (!validId(span.spanId, 8)) issues.push({ path: "spanId", message: "must be 8 bytes (16 hex digits), not all zero" });
  if (span.parentSpanId && span.parentSpanId.length > 0 && !validId(span.parentSpanId, 8)) {
    issues.push({ path: "parentSpanId", message: "must be empty or 8 bytes (16 hex digits), not all zero" });
  }
  if (issues.length) return { issues };

  const dropped: DroppedAttribute[] = [];
  const attributes = attributesToObject(span.attributes, dropped, "attributes");
  const events = (span.events ?? []).map((event, e) => {
    const eventAttributes = attributesToObject(event.attributes, dropped, `events[${e}].attributes`);
    const time = nanosToDate(event.timeUnixNano as Int64)?.toISOString() ?? null;
    for (const key of LIFTED_EVENT_ATTRIBUTES[event.name ?? ""] ?? []) {
      if (key in eventAttributes && !(key in attributes)) attributes[key] = eventAttributes[key];
      delete eventAttributes[key]; // the content now lives on the span: not stored twice
    }
    return { name: event.name ?? "", time, attributes: eventAttributes, ...(event.droppedAttributesCount ? { droppedAttributesCount: event.droppedAttributesCount } : {}) };
  });
  const start = nanosToDate(span.startTimeUnixNano as Int64);
  const end = nanosToDate(span.endTimeUnixNano as Int64);
  const otel: Record<string, unknown> = {
    spanKind: SPAN_KINDS[span.kind ?? 0] ?? "unspecified",
    resource: { attributes: attributesToObject(resource?.attributes, dropped, "resource.attributes"), ...(resourceSchemaUrl ? { schemaUrl: resourceSchemaUrl } : {}) },
    scope: { name: scope?.name ?? "", version: scope?.version ?? "", attributes: attributesToObject(scope?.attributes, dropped, "scope.attributes"), ...(scopeSchemaUrl ? { schemaUrl: scopeSchemaUrl } : {}) },
  };
  if (span.traceState) otel.traceState = span.traceState;
  if (events.length) otel.events = events;
  if (span.links?.length) {
    otel.links = span.links.map((link, l) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId), attributes: attributesToObject(link.attributes, dropped, `links[${l}].attributes`), ...(link.droppedAttributesCount ? { droppedAttributesCount: link.droppedAttributesCount } : {}) }));
  }
  if (span.droppedAttributesCount) otel.droppedAttributesCount = span.droppedAttributesCount;
  if (span.droppedEventsCount) otel.droppedEventsCount = span.droppedEventsCount;
  if (span.droppedLinksCount) otel.droppedLinksCount = span.droppedLinksCount;
  if (span.status?.message) otel.statusMessage = span.status.message;
  return {
    input: {
      traceId: hex(span.traceId),
      spanId: hex(span.spanId),
      ...(span.parentSpanId?.length ? { parentSpanId: hex(span.parentSpanId) } : {}),
      name: span.name ?? "",
      ...(start ? { startTime: start.toISOString() } : {}),
      ...(end ? { endTime: end.toISOString() } : {}),
      attributes,
      metadata: { otel },
      status: STATUS[span.status?.code ?? 0] ?? "unset",
    },
    dropped,
  };
}
