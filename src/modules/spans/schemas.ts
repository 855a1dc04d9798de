import { z } from "zod";
import { toInputIssues } from "../../lib/errors.js";
import { RUN_OUTCOMES, SPAN_KINDS, SPAN_STATUSES, type SpanKind } from "../../lib/closed-lists.js";
import { unstorableValues } from "../../lib/json-safety.js";
import { ownKeysRecord } from "../../lib/own-keys-record.js";
import { EPOCH_RULE, epochToMillis } from "../../lib/epoch.js";
import { exactNameSchema, notBlank, visibleText } from "../../lib/text-rules.js";
import { resourceAttributesOf } from "./matching.js";

/** Shared input schemas of the spans feature (GraphQL, CLI and MCP use the same). */

/** At most this many spans in one ingestSpans call (more is LIMIT_EXCEEDED). */
export const MAX_SPANS_PER_BATCH = 1_000;
/** At most this many bytes of JSON in one ingestSpans call (more is LIMIT_EXCEEDED). */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;
/** At most this many bytes of JSON in one span (more rejects that span only). */
export const MAX_SPAN_BYTES = 1024 * 1024;

/** The span status codes of OpenTelemetry (declared in src/lib/closed-lists.ts). */
export { SPAN_STATUSES } from "../../lib/closed-lists.js";

/** A trace or span id: 1 to 128 characters, not only whitespace, nothing invisible (src/lib/text-rules.ts). */
const id = (what: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? "is required" : `must be a string (the ${what})`) })
    .min(1, "must not be empty")
    .max(128, "must be at most 128 characters")
    .superRefine(notBlank)
    .superRefine(visibleText);

/** The filters of a span listing; every given one must hold. Score filters apply to one score of one run. */
export const spanFilterFieldsSchema = z.object({
  traceId: z.string().describe("Spans of this trace id.").nullish(),
  kind: z.enum(SPAN_KINDS).describe("Spans of this kind.").nullish(),
  name: z.string().max(256, "must be at most 256 characters").describe("A glob over span names (* and ?).").nullish(),
  from: z.date().describe("Spans that started at or after.").nullish(),
  to: z.date().describe("Spans that started before.").nullish(),
  evaluatorId: z.string().describe("Spans with a run of this evaluator.").nullish(),
  outcome: z.enum(RUN_OUTCOMES).describe("Spans with a run of this outcome (of the evaluator, when given).").nullish(),
  scoreName: z.string().describe("Spans with a score of this name.").nullish(),
  scoreValue: z.unknown().describe('… whose value equals this (true, 0.5, "label").').optional(),
  scoreMin: z.number().describe("… whose numeric value (1/0 for booleans) is at least this.").nullish(),
  scoreMax: z.number().describe("… whose numeric value is at most this.").nullish(),
});

/** A span listing's filter, or none ({@link spanFilterFieldsSchema}). */
export const spanFilterSchema = spanFilterFieldsSchema.nullish();

/** What an instant field accepts, in words (error messages, the GraphQL description). */
export const INSTANT_RULE = `an ISO 8601 date-time with a zone (e.g. 2026-01-31T12:00:00Z) or a number of ${EPOCH_RULE}`;

/**
 * An instant: an ISO 8601 string with a zone, or an epoch number whose unit is told by its size
 * ({@link epochToMillis}, the CLI's rule: 1796144519 is seconds, 1796144519000 milliseconds), so
 * epoch seconds are never stored as a date in January 1970.
 */
const instant = z.union(
  [
    z.iso.datetime({ offset: true, local: false }).transform((s) => new Date(s)),
    z
      .number()
      .finite()
      .nonnegative()
      .transform((n, ctx) => {
        const { ms, unit } = epochToMillis(n);
        const date = new Date(ms);
        if (Number.isNaN(date.getTime())) {
          ctx.addIssue({ code: "custom", message: `is out of range (${n} read as epoch ${unit})` });
          return z.NEVER;
        }
        return date;
      }),
  ],
  { error: `must be ${INSTANT_RULE}` },
);

/** Any JSON value (what JSON.parse can return). */
const json = z.unknown();

/**
 * Most attributes of one span (and of its resource): room for a long conversation flattened into
 * indexed attributes (OpenInference's two per turn) once the sender's SDK limit is raised past its
 * default of 128 (README § Long conversations and the SDK's attribute limit); the span's 1 MiB
 * bounds the rest.
 */
export const MAX_SPAN_ATTRIBUTES = 2_048;

/**
 * Flat span attributes, as OpenTelemetry sends them: key → JSON value; at most
 * {@link MAX_SPAN_ATTRIBUTES} keys. Every key is kept as an ordinary key, `__proto__` and
 * `constructor` included (src/lib/own-keys-record.ts), so rules can match them.
 */
const attributes = ownKeysRecord(z.string().min(1, "attribute keys must not be empty").max(256, "attribute keys must be at most 256 characters"), json, {
    error: "must be an object of attribute key to value",
  })
  .refine((value) => Object.keys(value).length <= MAX_SPAN_ATTRIBUTES, `must have at most ${MAX_SPAN_ATTRIBUTES} attributes`);

/**
 * One ingested span. `kind` defaults from `gen_ai.operation.name` (chat, execute_tool → tool,
 * invoke_agent/create_agent → agent), else "chat" for a span that carries a conversation (a string
 * input included), else
 * "other" (see {@link defaultKind}); `startTime` defaults to the time of ingest.
 */
export const spanInputSchema = z
  .object({
    traceId: id("trace id"),
    spanId: id("span id"),
    parentSpanId: id("parent span id").nullish(),
    name: exactNameSchema(256, { error: (i) => (i.input === undefined ? "is required" : "must be a string") }),
    kind: z.enum(SPAN_KINDS, { error: `must be one of ${SPAN_KINDS.join(", ")}` }).optional(),
    startTime: instant.optional(),
    endTime: instant.nullish(),
    input: json.optional(),
    output: json.optional(),
    attributes: attributes.optional(),
    resourceAttributes: attributes.optional(),
    metadata: ownKeysRecord(z.string(), json, { error: "must be an object" }).optional(),
    status: z.enum(SPAN_STATUSES, { error: `must be one of ${SPAN_STATUSES.join(", ")}` }).optional(),
  })
  .strict()
  .superRefine((span, ctx) => {
    if (span.startTime && span.endTime && span.endTime < span.startTime) {
      ctx.addIssue({ code: "custom", path: ["endTime"], message: "must not be before startTime" });
    }
    if (span.resourceAttributes && Object.keys(resourceAttributesOf(span.metadata)).length > 0) {
      ctx.addIssue({ code: "custom", path: ["resourceAttributes"], message: "give the resource attributes once: here or in metadata.otel.resource.attributes, not both" });
    }
  });

/**
 * The metadata stored for a span: as sent, with `resourceAttributes` (when given) at
 * `otel.resource.attributes`, where OTLP ingest keeps a span's resource, so rules and documents read
 * one place whichever way the span came.
 */
function withResource(metadata: Record<string, unknown>, resourceAttributes: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!resourceAttributes) return metadata;
  const otel = typeof metadata.otel === "object" && metadata.otel !== null && !Array.isArray(metadata.otel) ? (metadata.otel as Record<string, unknown>) : {};
  const resource = typeof otel.resource === "object" && otel.resource !== null && !Array.isArray(otel.resource) ? (otel.resource as Record<string, unknown>) : {};
  return { ...metadata, otel: { ...otel, resource: { ...resource, attributes: resourceAttributes } } };
}

/** One span as given to ingestSpans. */
export type SpanInput = z.input<typeof spanInputSchema>;

/** A valid span, normalised: every field present, times as Dates. */
export interface NormalisedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: SpanKind;
  startTime: Date;
  endTime: Date | null;
  input: unknown;
  output: unknown;
  attributes: Record<string, unknown>;
  metadata: Record<string, unknown>;
  status: (typeof SPAN_STATUSES)[number];
}

const OPERATION_KINDS: Record<string, SpanKind> = {
  chat: "chat",
  text_completion: "chat",
  generate_content: "chat",
  execute_tool: "tool",
  invoke_agent: "agent",
  create_agent: "agent",
  embeddings: "retrieval",
  retrieval: "retrieval",
};

/** OpenInference's `openinference.span.kind` values (upper case) and the kind they map to. */
const OPENINFERENCE_KINDS: Record<string, SpanKind> = {
  LLM: "chat",
  TOOL: "tool",
  AGENT: "agent",
  RETRIEVER: "retrieval",
  EMBEDDING: "retrieval",
  RERANKER: "retrieval",
};

/** True when the attributes carry a conversation in a flattened form (OpenLLMetry, OpenInference). */
function hasFlattenedMessages(attrs: Record<string, unknown>): boolean {
  return Object.keys(attrs).some((key) => /^(gen_ai\.prompt|llm\.input_messages)\.\d+\./.test(key));
}

/**
 * True when the input is a conversation: a list of chat messages (`{role, ...}`), as OpenAI-style
 * chat spans send, or a string, which the document reads as one user message (docs/document.md).
 */
function isConversationInput(value: unknown): boolean {
  if (typeof value === "string") return true;
  return Array.isArray(value) && value.length > 0 && value.every((m) => typeof m === "object" && m !== null && "role" in m);
}

/**
 * The kind a span gets when it gives none: from `gen_ai.operation.name`, else OpenInference's
 * `openinference.span.kind` (LLM → chat, TOOL, AGENT, RETRIEVER / EMBEDDING / RERANKER →
 * retrieval); else "chat" when it carries a conversation (a message list as input, a string as
 * input — one user message, as the document reads it —, GenAI message attributes, or flattened
 * OpenLLMetry / OpenInference messages), since evaluators run on chat spans by default; else "other".
 */
export function defaultKind(attrs: Record<string, unknown>, input?: unknown): SpanKind {
  const operation = attrs["gen_ai.operation.name"];
  if (typeof operation === "string" && OPERATION_KINDS[operation]) return OPERATION_KINDS[operation]!;
  const openInference = attrs["openinference.span.kind"];
  if (typeof openInference === "string" && OPENINFERENCE_KINDS[openInference.toUpperCase()]) return OPENINFERENCE_KINDS[openInference.toUpperCase()]!;
  if (isConversationInput(input) || "gen_ai.input.messages" in attrs || "gen_ai.output.messages" in attrs || "gen_ai.prompt" in attrs || hasFlattenedMessages(attrs)) return "chat";
  return "other";
}

/** Validates one span and fills its defaults. `now` is the ingest time (default startTime). */
export function normaliseSpan(raw: unknown, now: Date): { span: NormalisedSpan } | { issues: { path: string; message: string }[] } {
  // U+0000 (PostgreSQL stores none in text or jsonb), lone surrogates (traceId and spanId
  // included), 1e400 and absurd nesting: refused at their field's path, never stored changed.
  const unstorable = unstorableValues(raw);
  if (unstorable.length) return { issues: unstorable };
  const parsed = spanInputSchema.safeParse(raw);
  if (!parsed.success) {
    // An unknown key is named at its own path (`bogus: unknown field`), never at the bare span.
    return { issues: toInputIssues(parsed.error.issues) };
  }
  const s = parsed.data;
  const attrs = s.attributes ?? {};
  return {
    span: {
      traceId: s.traceId,
      spanId: s.spanId,
      parentSpanId: s.parentSpanId ?? null,
      name: s.name,
      kind: s.kind ?? defaultKind(attrs, s.input),
      startTime: s.startTime ?? now,
      endTime: s.endTime ?? null,
      input: s.input ?? null,
      output: s.output ?? null,
      attributes: attrs,
      metadata: withResource(s.metadata ?? {}, s.resourceAttributes),
      status: s.status ?? "unset",
    },
  };
}
