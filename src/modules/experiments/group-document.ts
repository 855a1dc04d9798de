import type { DatasetItem } from "../../generated/prisma/client.js";
import type { TargetType } from "../../lib/closed-lists.js";
import type { GroupSettings } from "../evaluators/group-settings.js";
import { sessionDocument, traceDocument, type GroupSpan } from "../groups/documents.js";
import { spansByTrace } from "../groups/stored.js";
import { sessionKeyOf } from "../spans/group-touches.js";
import { itemToDocument, traceSpansOf, type DocumentItem } from "./document.js";

/**
 * The documents of a dataset item for trace and session evaluators, as
 * docs/document.md § From a dataset item says: the item's own spans built by groups/documents.ts
 * exactly as live spans are, so an item that holds the spans of a stored trace or session gives
 * the document (and the score) that trace or session gives live.
 */

/** An item as its documents read it: the document columns and its id (a session's id when no span names one). */
export type GroupDocumentItem = DocumentItem & Pick<DatasetItem, "id">;

/** The trace id of spans that give none: no stored id holds U+0000 (jsonb refuses it); the document says null. */
const NO_TRACE = "\u0000";

/** Dependency scores (evaluator name → score name → value), when the evaluator has dependencies. */
type ItemScores = Record<string, Record<string, unknown>> | undefined;

function idOf(value: unknown): string | null {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

/** A span time of an item: an ISO string as it is; a number as seconds since the epoch (as ctx.trace orders it); else none. */
function timeOf(value: unknown): Date | string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) {
    const date = new Date(value * 1000);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}

function objectOr(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * One span of an item's trace (a loose dict of items.jsonl's `trace.spans`) as a group span: its
 * `trace_id`, `span_id` and `parent_span_id` when it gives them (a string or a number); else no
 * trace id (null in the document), its index in the item's trace as its id, and no parent.
 * @param span - the span as stored on the item.
 * @param index - its position in the item's trace.
 */
export function itemGroupSpan(span: Record<string, unknown>, index: number): GroupSpan {
  return {
    traceId: idOf(span.trace_id) ?? NO_TRACE,
    spanId: idOf(span.span_id) ?? String(index),
    parentSpanId: idOf(span.parent_span_id),
    name: typeof span.name === "string" ? span.name : "",
    kind: typeof span.kind === "string" && span.kind !== "" ? span.kind : "other",
    input: span.input ?? null,
    output: span.output ?? null,
    attributes: objectOr(span.attributes),
    metadata: objectOr(span.metadata),
    startTime: timeOf(span.start_time),
    endTime: timeOf(span.end_time),
  };
}

/** The item's own trace spans as group spans; null when it holds none. */
function ownSpans(item: DocumentItem): GroupSpan[] | null {
  if (!Array.isArray(item.traceSpans) || item.traceSpans.length === 0) return null;
  return (item.traceSpans as unknown[]).map((span, i) => itemGroupSpan(objectOr(span), i));
}

/** Puts null where a trace id is {@link NO_TRACE}, in `trace` and in each of `session.traces`. */
function nullTraceIds(document: Record<string, unknown>): Record<string, unknown> {
  const fix = (part: unknown) => {
    const entry = part as { trace_id?: string | null } | undefined;
    if (entry?.trace_id === NO_TRACE) entry.trace_id = null;
  };
  fix(document.trace);
  for (const trace of (document.session as { traces?: unknown[] } | undefined)?.traces ?? []) fix(trace);
  return document;
}

/**
 * The trace document of an item (a trace evaluator's). An item with its own spans: groups/documents.ts
 * `traceDocument` of them with the evaluator's caps, then the item's own `input`, `output` and
 * `expected_output` where it has them (else the root's), the root's attributes plus the item's
 * `context`, the root's metadata plus the item's (with `expected_tool_calls`). An item without
 * spans: its item document (tool calls as spans) with `trace_id` null, `span_count` and `capped`
 * false. `scores` is the item's dependency scores (`{}` without); when the evaluator has
 * dependencies each span carries `scores: {}` (they ran on the item, not on its spans). Pure.
 * @param item - the dataset item.
 * @param caps - the evaluator's resolved group settings (only the caps apply).
 * @param scores - its dependencies' scores on the item; undefined when it has none.
 */
export function itemTraceDocument(item: DocumentItem, caps: Readonly<GroupSettings>, scores?: ItemScores): Record<string, unknown> {
  const own = itemToDocument(item);
  const spans = ownSpans(item);
  if (spans === null) {
    const listed = traceSpansOf(item).map((s) => (scores ? { ...s, scores: {} } : s));
    return { ...own, trace: { trace_id: null, spans: listed, span_count: listed.length, capped: false }, scores: scores ?? {} };
  }
  const built = traceDocument(spans, caps, scores ? { scores: {} } : {}) as Record<string, unknown>;
  return nullTraceIds({
    input: item.input ?? built.input,
    output: item.output ?? built.output,
    attributes: { ...objectOr(built.attributes), ...objectOr(own.attributes) },
    metadata: { ...objectOr(built.metadata), ...objectOr(own.metadata) },
    trace: built.trace,
    scores: scores ?? {},
    expected_output: item.expectedOutput ?? built.expected_output ?? null,
  });
}

/**
 * The spans of an item that holds only a conversation: one trace whose one chat span has the
 * item's input and output, then one tool span per tool call (its children, in call order).
 */
function conversationSpans(item: DocumentItem): GroupSpan[] {
  const chat: GroupSpan = { traceId: NO_TRACE, spanId: "0", parentSpanId: null, name: "chat", kind: "chat", input: item.input ?? null, output: item.output ?? null, attributes: {}, startTime: null };
  const tools = traceSpansOf({ toolCalls: item.toolCalls, traceSpans: null }).map((s, i) => ({ ...itemGroupSpan(s, i + 1), parentSpanId: "0" }));
  return [chat, ...tools];
}

/**
 * The session document of an item (a session evaluator's): groups/documents.ts `sessionDocument`
 * with the evaluator's caps over the item's own spans grouped by their `trace_id` (spans without
 * one are one trace), so turns dedupe as live; an item without spans is one trace of one chat
 * span with the item's input and output (and its tool calls as tool spans). The conversation
 * (`input`, `output`) is the traces', as live; the session id is the first of the evaluator's
 * session key attributes on a span, else the item's id. To it: the item's `context` in
 * `attributes`, its metadata over the first root's, its `expected_output`, and `scores` as in
 * {@link itemTraceDocument}. Pure.
 * @param item - the dataset item.
 * @param settings - the evaluator's resolved group settings (caps and session key attributes).
 * @param scores - its dependencies' scores on the item; undefined when it has none.
 */
export function itemSessionDocument(item: GroupDocumentItem, settings: Readonly<GroupSettings>, scores?: ItemScores): Record<string, unknown> {
  const own = itemToDocument(item);
  const spans = ownSpans(item) ?? conversationSpans(item);
  const sessionId = spans.map((s) => sessionKeyOf(s.attributes, settings.sessionKeyAttributes)).find((k) => k !== null) ?? item.id;
  const built = sessionDocument(sessionId, [...spansByTrace(spans).values()], settings, scores ? { scores: {} } : {}) as Record<string, unknown>;
  return nullTraceIds({
    ...built,
    attributes: { ...objectOr(built.attributes), ...objectOr(own.attributes) },
    metadata: { ...objectOr(built.metadata), ...objectOr(own.metadata) },
    scores: scores ?? {},
    expected_output: item.expectedOutput ?? null,
  });
}

/**
 * The document an evaluator of `target` sees on an item: a span evaluator's is `itemToDocument`'s,
 * a trace evaluator's {@link itemTraceDocument}, a session evaluator's {@link itemSessionDocument}.
 * @param settings - the evaluator's resolved group settings (null for a span evaluator).
 */
export function itemDocumentFor(target: TargetType, settings: Readonly<GroupSettings> | null, item: GroupDocumentItem, scores?: ItemScores): Record<string, unknown> {
  if (target === "span" || settings === null) return itemToDocument(item, scores);
  return target === "trace" ? itemTraceDocument(item, settings, scores) : itemSessionDocument(item, settings, scores);
}
