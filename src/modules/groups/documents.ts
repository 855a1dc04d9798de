/**
 * The sample documents of a trace and of a session (docs/document.md § From a trace, § From a
 * session): what a trace or session evaluator sees. Pure and deterministic: the same spans, caps
 * and extras always give the same document, keys in the same order, so a stored group replays
 * locally unchanged (`python -m oodle_eval run FILE --span doc.json`).
 */

import { jsonBytes } from "../../lib/json-safety.js";
import { turnsOf, type Turn } from "../spans/conversation.js";
import {
  spanToDocument,
  traceSpanDocument,
  type GroupCompletion,
  type SampleDocument,
  type SessionDocument,
  type SessionTraceDocument,
  type SpanLike,
  type TraceDocument,
  type TraceSpanDocument,
} from "../spans/document.js";
import { GROUP_CAPS, type GroupCaps } from "../evaluators/group-caps.js";

/** A stored span of a group (a Span row, or anything with its fields). */
export interface GroupSpan extends SpanLike {
  traceId: string;
  spanId: string;
  /** Null, undefined or "" for a root. */
  parentSpanId?: string | null;
}

/** Scores of a group's spans: {@link groupSpanKey} of the span → evaluator name → score name → value. */
export type SpanScores = Readonly<Record<string, Record<string, Record<string, unknown>>>>;

/** The key of a span in {@link SpanScores}: `<traceId>:<spanId>` (span ids are unique within a trace only, and a session has many). */
export function groupSpanKey(span: { traceId: string; spanId: string }): string {
  return `${span.traceId}:${span.spanId}`;
}

/** What a group document carries besides the spans. */
export interface GroupDocumentExtras {
  /** The scores of the span evaluators this one depends on, per span (keyed by {@link groupSpanKey}). */
  scores?: SpanScores;
  /** Why the evaluator ran: `trace.completion` (a trace document) or `session.completion` (a session document). */
  completion?: GroupCompletion;
}

/** Roles whose turn is the reply (python-lib `text.reply`'s). */
const ASSISTANT_ROLES = new Set(["assistant", "ai", "model", "bot"]);

function millis(value: Date | string | null | undefined): number {
  if (value === null || value === undefined) return Number.POSITIVE_INFINITY;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

/**
 * Depth of each span in its trace's tree (a root, or a span whose parent is not among them, is 0).
 * Stored start times are whole milliseconds, so a parent and the child it starts at once tie.
 */
function depths(spans: readonly GroupSpan[]): number[] {
  const byId = new Map(spans.map((s) => [`${s.traceId}:${s.spanId}`, s]));
  // Each span's depth once (memoized), so a deep chain costs its length, not its length squared.
  const known = new Map<GroupSpan, number>();
  return spans.map((span) => {
    const path: GroupSpan[] = [];
    const onPath = new Set<GroupSpan>();
    let at: GroupSpan | undefined = span;
    let base = -1;
    while (at !== undefined) {
      const memo = known.get(at);
      if (memo !== undefined) {
        base = memo;
        break;
      }
      if (onPath.has(at)) {
        // A parent cycle (bad data): each span on it is as deep as the cycle is long, those leading into it deeper.
        const start = path.indexOf(at);
        for (let i = start; i < path.length; i += 1) known.set(path[i]!, path.length - start);
        base = path.length - start;
        path.length = start;
        break;
      }
      path.push(at);
      onPath.add(at);
      const parentId: string | null | undefined = at.parentSpanId;
      at = parentId ? byId.get(`${at.traceId}:${parentId}`) : undefined;
    }
    for (let i = path.length - 1; i >= 0; i -= 1) known.set(path[i]!, base + (path.length - i));
    return known.get(span)!;
  });
}

/** The spans ordered by start time; at equal starts a parent before its children, then their given order; spans without a time last. */
function byStart<T extends GroupSpan>(spans: readonly T[]): T[] {
  const depth = depths(spans);
  return spans
    .map((s, i) => ({ s, i, t: millis(s.startTime), d: depth[i]! }))
    .sort((a, b) => a.t - b.t || a.d - b.d || a.i - b.i)
    .map(({ s }) => s);
}

const isRoot = (span: GroupSpan): boolean => span.parentSpanId === null || span.parentSpanId === undefined || span.parentSpanId === "";

/** Index of the root in spans ordered by start: the earliest span without a parent, else the earliest span. */
function rootIndex(ordered: readonly GroupSpan[]): number {
  const index = ordered.findIndex(isRoot);
  return index >= 0 ? index : 0;
}

/** One span as an entry of a group document's `trace.spans`: a span document's seven keys, then its ids and scores. */
function groupSpanEntry(span: GroupSpan, scores: SpanScores | undefined): TraceSpanDocument {
  const entry: TraceSpanDocument = { ...traceSpanDocument(span), span_id: span.spanId, parent_span_id: isRoot(span) ? null : span.parentSpanId! };
  if (scores !== undefined) entry.scores = scores[groupSpanKey(span)] ?? {};
  return entry;
}

/** One trace, prepared: spans ordered, the root found; entries built (and sized) only for the spans caps keep. */
interface PreparedTrace {
  traceId: string;
  root: GroupSpan;
  /** Index of the root among the ordered spans. */
  rootAt: number;
  /** Spans of the trace. */
  count: number;
  /** Start of its earliest span (ms; +Infinity without one). */
  start: number;
  /** The entry of the i-th span by start. */
  entry(i: number): TraceSpanDocument;
  /** Bytes of JSON of that entry. */
  bytes(i: number): number;
}

function prepare(spans: readonly GroupSpan[], scores: SpanScores | undefined): PreparedTrace {
  const ordered = byStart(spans);
  const at = rootIndex(ordered);
  const root = ordered[at]!;
  const entries = new Map<number, TraceSpanDocument>();
  const sizes = new Map<number, number>();
  const entry = (i: number): TraceSpanDocument => {
    let built = entries.get(i);
    if (built === undefined) entries.set(i, (built = groupSpanEntry(ordered[i]!, scores)));
    return built;
  };
  const bytes = (i: number): number => {
    let size = sizes.get(i);
    if (size === undefined) sizes.set(i, (size = jsonBytes(entry(i))));
    return size;
  };
  return { traceId: root.traceId, root, rootAt: at, count: ordered.length, start: millis(ordered[0]!.startTime), entry, bytes };
}

/**
 * Indexes (into the ordered spans) kept under a budget of `max` spans: the root and the earliest
 * others, in start order. With the root the earliest span (the usual case) these are the earliest `max`.
 */
function keptUnder(count: number, rootAt: number, max: number): number[] {
  if (max <= 0) return [];
  if (count <= max) return Array.from({ length: count }, (_, i) => i);
  const kept: number[] = [];
  for (let i = 0; i < count && kept.length < max - 1; i += 1) if (i !== rootAt) kept.push(i);
  kept.push(rootAt);
  return kept.sort((a, b) => a - b);
}

/** Order in which the bytes cap drops a trace's kept spans: the latest first, the root last (or never). */
function dropOrder(kept: readonly number[], rootAt: number, withRoot: boolean): number[] {
  const order = kept.filter((i) => i !== rootAt).reverse();
  if (withRoot && kept.includes(rootAt)) order.push(rootAt);
  return order;
}

/**
 * How the bytes cap shrinks a document: drop steps, each removing one element of one of the
 * document's variable arrays (a trace's spans, the conversation's input), in order.
 */
interface BytesPlan {
  /**
   * The document with the first `k` steps applied; `skeleton`: with every variable array empty
   * (`[]`), the rest (flags included) as at `k`.
   */
  build(k: number, skeleton: boolean): SampleDocument;
  /** Each variable array: its elements before any step, their summed bytes of JSON, and how many times the document holds it. */
  arrays: { count: number; bytes: number; times: number }[];
  /** Each step: the array it removes an element of, and that element's bytes of JSON. */
  steps: { array: number; bytes: number }[];
  /** Equal for two `k` whose skeletons are equal (the flags that `k` sets). */
  flagsAt(k: number): string;
}

/**
 * The document with the fewest drop steps applied that is at most `maxBytes` of JSON, else the
 * one with every step applied. Sizes are counted, not encoded per step: a document's JSON is its
 * skeleton's plus, per variable array, its elements' bytes and a comma between two (JSON.stringify
 * without spaces), so each element is encoded once, each skeleton once per set of flags.
 */
function fitBytes(plan: BytesPlan, maxBytes: number): SampleDocument {
  const whole = plan.build(0, false);
  if (plan.steps.length === 0 || jsonBytes(whole) <= maxBytes) return whole;
  const counts = plan.arrays.map((a) => a.count);
  let variable = plan.arrays.reduce((sum, a) => sum + a.times * (a.bytes + Math.max(0, a.count - 1)), 0);
  const skeletons = new Map<string, number>();
  for (let k = 1; k <= plan.steps.length; k += 1) {
    const step = plan.steps[k - 1]!;
    variable -= plan.arrays[step.array]!.times * (step.bytes + (counts[step.array]! > 1 ? 1 : 0));
    counts[step.array]! -= 1;
    const flags = plan.flagsAt(k);
    let skeleton = skeletons.get(flags);
    if (skeleton === undefined) skeletons.set(flags, (skeleton = jsonBytes(plan.build(k, true))));
    if (skeleton + variable <= maxBytes) return plan.build(k, false);
  }
  return plan.build(plan.steps.length, false);
}

/**
 * The sample document of a trace: what a trace evaluator sees (docs/document.md § From a trace).
 *
 * Shape (keys in this order):
 * ```
 * { input, output, attributes, metadata,          // the root's, as spanToDocument gives them
 *   trace: { trace_id, spans: [{name, kind, input, output, attributes, start_time, end_time,
 *                               span_id, parent_span_id, scores?}],
 *            span_count, capped, completion? },
 *   scores,                                        // the root's dependency scores ({} without)
 *   expected_output? }                             // the root's attribute oodle.expected_output
 * ```
 * Rules:
 * - The root is the span without a parent (null or ""), the earliest by start if several; a trace
 *   without one takes its earliest span. `trace_id` is the root's.
 * - `trace.spans` are ordered by start time, ties (and spans without a time, last) in their given
 *   order; each is a span document's entry plus `span_id`, `parent_span_id` (null for a root) and,
 *   when `extras.scores` is given, `scores` (that span's entry of it, `{}` when it has none).
 * - `span_count` is every span given, before caps.
 * - Caps: the root and the earliest `maxSpans − 1` other spans are kept (the earliest
 *   `maxSpans` when the root is the earliest span); then, while the document is over
 *   `maxDocumentBytes` of JSON, the latest kept span is dropped, never the root (a root alone over
 *   the cap leaves the document over it). `capped` is true when any span was dropped.
 * - `completion`, when given, is `trace.completion`: why the evaluator ran.
 * @param spans - every stored span of one trace (at least one), in any order.
 * @param caps - resolved caps (resolveGroupCaps); only maxSpans and maxDocumentBytes apply.
 * @param extras - per-span dependency scores (keyed by groupSpanKey) and the completion reason.
 * @throws Error when `spans` is empty.
 */
export function traceDocument(spans: readonly GroupSpan[], caps: Readonly<GroupCaps> = GROUP_CAPS, extras: GroupDocumentExtras = {}): SampleDocument {
  if (spans.length === 0) throw new Error("traceDocument: a trace has at least one span");
  const trace = prepare(spans, extras.scores);
  const kept = keptUnder(trace.count, trace.rootAt, caps.maxSpans);
  const drops = dropOrder(kept, trace.rootAt, false);
  const base = spanToDocument(trace.root, [], { scores: extras.scores?.[groupSpanKey(trace.root)] ?? {} });
  const build = (k: number, skeleton: boolean): SampleDocument => {
    const dropped = new Set(drops.slice(0, k));
    const spansKept = kept.filter((i) => !dropped.has(i)).map((i) => trace.entry(i));
    const part: TraceDocument = { trace_id: trace.traceId, spans: skeleton ? [] : spansKept, span_count: trace.count, capped: spansKept.length < trace.count };
    if (extras.completion !== undefined) part.completion = extras.completion;
    return { ...base, trace: part };
  };
  return fitBytes(
    {
      build,
      arrays: [{ count: kept.length, bytes: kept.reduce((sum, i) => sum + trace.bytes(i), 0), times: 1 }],
      steps: drops.map((i) => ({ array: 0, bytes: trace.bytes(i) })),
      flagsAt: () => "capped",
    },
    caps.maxDocumentBytes,
  );
}

/** The conversation across traces: each trace's turns, less the history its input repeats. */
function conversationOf(turnsPerTrace: readonly Turn[][]): Turn[] {
  const conversation: Turn[] = [];
  for (const turns of turnsPerTrace) {
    const repeats = conversation.length > 0 && turns.length >= conversation.length && conversation.every((t, i) => t.role === turns[i]!.role && t.content === turns[i]!.content);
    conversation.push(...(repeats ? turns.slice(conversation.length) : turns));
  }
  return conversation;
}

/** One step of the session's bytes cap: drop a span (trace index, span index) or the oldest turn. */
type SessionDrop = { span: [number, number] } | { turn: true };

/**
 * The sample document of a session: what a session evaluator sees
 * (docs/document.md § From a session).
 *
 * Shape (keys in this order):
 * ```
 * { input: [{role, content}, ...],               // every turn kept but the last, when it is the reply
 *   output: {role: "assistant", content} | null, // the last turn when it is the reply (role assistant, ai, model or bot)
 *   attributes, metadata,                        // the first trace's root's
 *   trace: { trace_id, spans, span_count, capped }, // the last trace, as in a trace document
 *   session: { id, traces: [{trace_id, spans, span_count}], trace_count, turn_count, capped, completion? },
 *   scores }                                     // the last trace's root's dependency scores ({} without)
 * ```
 * Rules:
 * - Traces (empty ones skipped) are ordered by their earliest span's start, ties in their given
 *   order; each trace's root and spans follow {@link traceDocument}'s rules.
 * - The conversation: each trace gives the turns of its root's conversation (its input messages,
 *   then its output: the rules of `ctx.turns`, src/modules/spans/conversation.ts `turnsOf`). Chat
 *   apps send the whole history so far in each call's input: when a trace's turns start with the
 *   conversation so far (same role and content, in order), only the rest is appended; otherwise
 *   all its turns are. So `ctx.turns` (and `text.turns(ctx)`) is every turn across the traces, in
 *   order, and the last turn is the newest reply. When the last turn is not a reply (the session
 *   ends on a user turn), `input` holds every turn and `output` is null.
 * - `turn_count` is every turn of the conversation, before caps; `trace_count` every trace.
 * - Caps, in this order; `capped` is true when any of them dropped a turn or a span (the last
 *   trace's own drops also set `trace.capped`):
 *   1. `maxTurns`: the latest `maxTurns` turns are kept (the oldest dropped).
 *   2. `maxSpans` counts spans across traces, and the newest traces keep theirs first: the last
 *      trace keeps its root and its earliest spans up to the budget, then the trace before it out
 *      of what is left, and so on; older traces may keep none (`spans: []`, still listed).
 *   3. `maxDocumentBytes`: while the document is over it, drop the spans of the oldest trace that
 *      still has any (its latest first, its root last), then the last trace's spans but its root
 *      (latest first), then the oldest turns down to the last one. The last trace's root is never
 *      dropped; a document still over the cap then stays over it.
 * - `completion`, when given, is `session.completion`: why the evaluator ran.
 * @param sessionId - the session key's value.
 * @param traces - the spans of each trace of the session (any order, spans in any order).
 * @param caps - resolved caps (resolveGroupCaps).
 * @param extras - per-span dependency scores (keyed by groupSpanKey, across the traces) and the completion reason.
 * @throws Error when no trace has a span.
 */
export function sessionDocument(
  sessionId: string,
  traces: readonly (readonly GroupSpan[])[],
  caps: Readonly<GroupCaps> = GROUP_CAPS,
  extras: GroupDocumentExtras = {},
): SampleDocument {
  const prepared = traces
    .filter((spans) => spans.length > 0)
    .map((spans, i) => ({ trace: prepare(spans, extras.scores), i }))
    .sort((a, b) => a.trace.start - b.trace.start || a.i - b.i)
    .map(({ trace }) => trace);
  if (prepared.length === 0) throw new Error("sessionDocument: a session has at least one trace with a span");
  const last = prepared.length - 1;
  const rootDocuments = prepared.map((t) => spanToDocument(t.root, [], { scores: extras.scores?.[groupSpanKey(t.root)] ?? {} }));
  const conversation = conversationOf(rootDocuments.map((d) => turnsOf(d.input, d.output)));
  const turnsKept = conversation.slice(Math.max(0, conversation.length - caps.maxTurns));

  // maxSpans: the newest traces first.
  let budget = caps.maxSpans;
  const kept: number[][] = new Array<number[]>(prepared.length);
  for (let t = last; t >= 0; t -= 1) {
    const trace = prepared[t]!;
    kept[t] = keptUnder(trace.count, trace.rootAt, budget);
    budget -= kept[t]!.length;
  }
  const drops: SessionDrop[] = [];
  for (let t = 0; t < last; t += 1) for (const i of dropOrder(kept[t]!, prepared[t]!.rootAt, true)) drops.push({ span: [t, i] });
  for (const i of dropOrder(kept[last]!, prepared[last]!.rootAt, false)) drops.push({ span: [last, i] });
  for (let n = turnsKept.length; n > 1; n -= 1) drops.push({ turn: true });

  const first = rootDocuments[0]!;
  const build = (k: number, skeleton: boolean): SampleDocument => {
    const dropped = new Set<string>();
    let turnsDropped = 0;
    for (const step of drops.slice(0, k)) {
      if ("turn" in step) turnsDropped += 1;
      else dropped.add(`${step.span[0]}:${step.span[1]}`);
    }
    const turns = turnsKept.slice(turnsDropped);
    const lastTurn = turns[turns.length - 1];
    const reply = lastTurn !== undefined && ASSISTANT_ROLES.has(lastTurn.role);
    const history = (reply ? turns.slice(0, -1) : turns).map((t) => ({ role: t.role, content: t.content }));
    const entries: SessionTraceDocument[] = prepared.map((trace, t) => ({
      trace_id: trace.traceId,
      spans: kept[t]!.filter((i) => !dropped.has(`${t}:${i}`)).map((i) => trace.entry(i)),
      span_count: trace.count,
    }));
    const lastEntry = entries[last]!;
    const lastCapped = lastEntry.spans.length < lastEntry.span_count;
    const capped = turns.length < conversation.length || entries.some((e) => e.spans.length < e.span_count);
    const listed = skeleton ? entries.map((e) => ({ ...e, spans: [] })) : entries;
    const session: SessionDocument = { id: sessionId, traces: listed, trace_count: prepared.length, turn_count: conversation.length, capped };
    if (extras.completion !== undefined) session.completion = extras.completion;
    return {
      input: skeleton ? [] : history,
      output: reply ? { role: lastTurn.role, content: lastTurn.content } : null,
      attributes: first.attributes,
      metadata: first.metadata,
      trace: { trace_id: lastEntry.trace_id, spans: skeleton ? [] : lastEntry.spans, span_count: lastEntry.span_count, capped: lastCapped },
      session,
      scores: rootDocuments[last]!.scores,
    };
  };
  // The variable arrays: each trace's spans (the last trace's twice: session.traces and trace), then the input.
  const replyKept = turnsKept.length > 0 && ASSISTANT_ROLES.has(turnsKept[turnsKept.length - 1]!.role);
  const historyBytes = (replyKept ? turnsKept.slice(0, -1) : turnsKept).map((t) => jsonBytes({ role: t.role, content: t.content }));
  const arrays = [
    ...prepared.map((_, t) => ({ count: kept[t]!.length, bytes: kept[t]!.reduce((sum, i) => sum + prepared[t]!.bytes(i), 0), times: t === last ? 2 : 1 })),
    { count: historyBytes.length, bytes: historyBytes.reduce((sum, b) => sum + b, 0), times: 1 },
  ];
  let turnsDropped = 0;
  const steps = drops.map((step) => ("turn" in step ? { array: prepared.length, bytes: historyBytes[turnsDropped++]! } : { array: step.span[0], bytes: prepared[step.span[0]]!.bytes(step.span[1]) }));
  const lastCappedBefore = kept[last]!.length < prepared[last]!.count;
  const firstLastDrop = drops.findIndex((step) => "span" in step && step.span[0] === last);
  return fitBytes(
    { build, arrays, steps, flagsAt: (k) => String(lastCappedBefore || (firstLastDrop >= 0 && k > firstLastDrop)) },
    caps.maxDocumentBytes,
  );
}

/**
 * The document of one trace or session as a trace or session evaluator sees it ({@link traceDocument}
 * of the trace's spans, or {@link sessionDocument} of the session's traces), and whether the caps cut
 * it (`trace.capped` / `session.capped`, recorded as Run.documentCapped). The live group processor and
 * backfills build it the same way.
 * @param groupKey - the trace id or the session key.
 * @param traces - the group's spans by trace (a trace: one list).
 */
export function groupDocument(
  targetType: "trace" | "session",
  groupKey: string,
  traces: readonly (readonly GroupSpan[])[],
  caps: Readonly<GroupCaps>,
  extras: GroupDocumentExtras = {},
): { document: Record<string, unknown>; capped: boolean } {
  const document = (targetType === "trace" ? traceDocument(traces[0] ?? [], caps, extras) : sessionDocument(groupKey, traces, caps, extras)) as Record<string, unknown>;
  const part = (targetType === "trace" ? document.trace : document.session) as { capped?: boolean } | undefined;
  return { document, capped: part?.capped === true };
}
