import { objectOf } from "../../lib/json-column.js";
import { conversationInput, conversationOutput } from "./genai.js";

/**
 * The sample document (docs/document.md § From a span): what one evaluation sees.
 * Every key is optional; try_code's inline sample, the runner's input and
 * `python -m oodle_eval run --span FILE` all accept it.
 */
export interface SampleDocument {
  /** The span's input messages (or a string, or any JSON). */
  input?: unknown;
  /** The span's output: a string, a message, a list of messages, or any JSON. */
  output?: unknown;
  /** Flat span attributes. */
  attributes?: Record<string, unknown>;
  /** The dataset item's expected output (experiments only). */
  expected_output?: unknown;
  /**
   * The trace's spans, ordered by start time. A trace or session document (src/modules/groups)
   * adds the trace's id, its span count, whether caps dropped spans and why it ran.
   */
  trace?: TraceDocument;
  /** A session document's session (src/modules/groups/documents.ts); absent in every other document. */
  session?: SessionDocument;
  /** Scores of the evaluators this one depends on: evaluator name → score name → value. */
  scores?: Record<string, Record<string, unknown>>;
  /** The span's or dataset item's metadata. */
  metadata?: Record<string, unknown>;
}

/** One span of `trace.spans` in the sample document. */
export interface TraceSpanDocument {
  name: string;
  kind: string;
  input: unknown;
  output: unknown;
  attributes: Record<string, unknown>;
  start_time: string | null;
  end_time: string | null;
  /** The span's id (trace and session documents only). */
  span_id?: string;
  /** Its parent's span id, null for a root (trace and session documents only). */
  parent_span_id?: string | null;
  /** Its dependencies' scores, evaluator name → score name → value (trace and session documents, when given). */
  scores?: Record<string, Record<string, unknown>>;
}

/** Why a group evaluator ran: its end marker, the quiet period, or the maximum wait. */
export type GroupCompletion = "end_marker" | "quiet_period" | "max_wait";

/** The document's `trace`: its spans; a trace or session document adds the rest. */
export interface TraceDocument {
  /** The trace's id (trace and session documents). */
  trace_id?: string;
  /** Its spans, ordered by start time (ties keep their given order). */
  spans: TraceSpanDocument[];
  /** Spans the trace has in all, before caps (trace and session documents). */
  span_count?: number;
  /** True when caps dropped spans of this trace (trace and session documents). */
  capped?: boolean;
  /** Why a trace evaluator ran (trace documents, when given). */
  completion?: GroupCompletion;
}

/** One trace of `session.traces`. */
export interface SessionTraceDocument {
  trace_id: string;
  /** Its spans as in a trace document (caps may leave fewer, or none). */
  spans: TraceSpanDocument[];
  /** Spans the trace has in all, before caps. */
  span_count: number;
}

/** The document's `session` (a session document). */
export interface SessionDocument {
  /** The session key's value. */
  id: string;
  /** Its traces, ordered by their earliest span's start. */
  traces: SessionTraceDocument[];
  /** Traces of the session in all. */
  trace_count: number;
  /** Turns of the whole conversation, before caps. */
  turn_count: number;
  /** True when caps dropped turns or spans. */
  capped: boolean;
  /** Why the session evaluator ran, when given. */
  completion?: GroupCompletion;
}

/** What {@link spanToDocument} reads of a span (a stored Span row or a normalised input span). */
export interface SpanLike {
  name: string;
  kind: string;
  input: unknown;
  output: unknown;
  attributes: unknown;
  metadata?: unknown;
  startTime: Date | string | null;
  endTime?: Date | string | null;
}

/**
 * The span attribute that carries a span's expected response: the document's `expected_output`
 * (ctx.expected_output; `output` of an Open Chat Studio `main`), a string or a message
 * `{role, content}`. No OpenTelemetry GenAI or OpenInference attribute means "the expected
 * answer", so it is in this service's namespace; python-lib's `EXPECTED_OUTPUT_ATTRIBUTE` names it too.
 */
export const EXPECTED_OUTPUT_ATTRIBUTE = "oodle.expected_output";

/** Extra keys of a document: scores of dependencies (docs/document.md § Reading a dependency's score) and an expected output (experiments). */
export interface DocumentExtras {
  scores?: Record<string, Record<string, unknown>>;
  expected_output?: unknown;
}

function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value.toISOString() : value;
}

function millis(value: Date | string | null | undefined): number {
  if (value === null || value === undefined) return Number.POSITIVE_INFINITY;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

/** One span as an entry of `trace.spans`: its conversation resolved, times as ISO strings. */
export function traceSpanDocument(span: SpanLike): TraceSpanDocument {
  const attributes = objectOf(span.attributes);
  return {
    name: span.name,
    kind: span.kind,
    input: conversationInput({ input: span.input, attributes }),
    output: conversationOutput({ output: span.output, attributes }),
    attributes,
    start_time: iso(span.startTime),
    end_time: iso(span.endTime),
  };
}

/**
 * The sample document of a span: its conversation (the span's own input/output in the OpenAI
 * shape, else the OTel GenAI attributes), attributes, metadata and its trace's spans ordered by
 * start time (ties keep their given order). `expected_output` is the span's attribute
 * {@link EXPECTED_OUTPUT_ATTRIBUTE} when it has one (else absent: a live span has no expected
 * response), unless `extras` gives one. Pure: the same
 * span and trace always give the same document, so a saved span replays locally unchanged.
 * @param span - the evaluated span.
 * @param traceSpans - the spans of its trace (the span itself included); [] leaves `trace` empty.
 * @param extras - dependency scores (docs/evaluation.md § Dependencies and gates) or an expected output (experiments).
 */
export function spanToDocument(span: SpanLike, traceSpans: readonly SpanLike[] = [], extras: DocumentExtras = {}): SampleDocument {
  const attributes = objectOf(span.attributes);
  const ordered = traceSpans
    .map((s, i) => ({ s, i, t: millis(s.startTime) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map(({ s }) => traceSpanDocument(s));
  const document: SampleDocument = {
    input: conversationInput({ input: span.input, attributes }),
    output: conversationOutput({ output: span.output, attributes }),
    attributes,
    metadata: objectOf(span.metadata),
    trace: { spans: ordered },
    scores: extras.scores ?? {},
  };
  if (extras.expected_output !== undefined) document.expected_output = extras.expected_output;
  else if (attributes[EXPECTED_OUTPUT_ATTRIBUTE] !== undefined && attributes[EXPECTED_OUTPUT_ATTRIBUTE] !== null) document.expected_output = attributes[EXPECTED_OUTPUT_ATTRIBUTE];
  return document;
}
