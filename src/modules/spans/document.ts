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
  /** The trace's spans, ordered by start time. */
  trace?: { spans: TraceSpanDocument[] };
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
