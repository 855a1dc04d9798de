/**
 * What the sender of a span dropped before it arrived, read from the counts OTLP carries
 * (`Span.dropped_attributes_count`, `dropped_events_count`, `dropped_links_count` and each
 * event's and link's `dropped_attributes_count`, kept at `metadata.otel` by otlp/mapping.ts; an
 * `ingestSpans` caller may give the same keys there). An OpenTelemetry SDK drops attributes past
 * its limit (128 per span by default), so a long conversation flattened into indexed attributes
 * (OpenInference `llm.input_messages.{i}.…`) arrives without its later turns: the document an
 * evaluator sees is then incomplete, and explainMatch and the run say so. Pure functions.
 */

/** Counts of what the sender dropped (0 for each when nothing was). */
export interface DroppedCounts {
  /** Span attributes. */
  attributes: number;
  /** Events of the span. */
  events: number;
  /** Links of the span. */
  links: number;
  /** Attributes of its kept events, summed. */
  eventAttributes: number;
  /** Attributes of its kept links, summed. */
  linkAttributes: number;
}

const count = (value: unknown): number => (typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0);
const objectOf = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const sum = (list: unknown): number => (Array.isArray(list) ? list.reduce<number>((n, item) => n + count(objectOf(item).droppedAttributesCount), 0) : 0);

/** The dropped counts of a span's metadata (`metadata.otel.dropped*`); zeros when absent. */
export function droppedCountsOf(metadata: unknown): DroppedCounts {
  const otel = objectOf(objectOf(metadata).otel);
  return {
    attributes: count(otel.droppedAttributesCount),
    events: count(otel.droppedEventsCount),
    links: count(otel.droppedLinksCount),
    eventAttributes: sum(otel.events),
    linkAttributes: sum(otel.links),
  };
}

/** Where the README says how to keep a long conversation whole. */
export const INCOMPLETE_HELP = "raise the OpenTelemetry SDK's attribute count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, or spanLimits.attributeCountLimit) or send the conversation as gen_ai.input.messages / gen_ai.output.messages (README § Long conversations and the SDK's attribute limit)";

/**
 * A sentence saying that the span's document is incomplete and what was dropped, or null when the
 * sender dropped nothing: `the span is incomplete: its sender dropped 152 attributes before export
 * (an OpenTelemetry SDK limit), so the document may miss turns; raise …`.
 */
export function incompleteNote(metadata: unknown): string | null {
  const d = droppedCountsOf(metadata);
  const parts = [
    d.attributes ? `${d.attributes} attribute(s)` : "",
    d.events ? `${d.events} event(s)` : "",
    d.links ? `${d.links} link(s)` : "",
    d.eventAttributes ? `${d.eventAttributes} event attribute(s)` : "",
    d.linkAttributes ? `${d.linkAttributes} link attribute(s)` : "",
  ].filter(Boolean);
  if (parts.length === 0) return null;
  return `the span is incomplete: its sender dropped ${parts.join(", ")} before export (an OpenTelemetry SDK limit), so the document may miss turns or content; ${INCOMPLETE_HELP}`;
}
