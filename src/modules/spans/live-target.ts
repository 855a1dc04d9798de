import type { Span } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { spanToDocument } from "./document.js";
import { MAX_TRACE_SPANS } from "./service.js";

/**
 * The target seam of the live path: what the live driver (runs/processor.ts) needs of one kind of
 * target (TARGET_TYPES, src/lib/closed-lists.ts), chosen by the job's `targetType` from the
 * table the composition root gives it. A span is one implementation ({@link spanLiveTarget});
 * a trace or a session is one more, and the processor does not change.
 */
export interface LiveTarget<W> {
  /**
   * Loads a batch's targets of one workspace by id, in as few queries as it can.
   * @returns target id → its loaded target; an id whose target is gone is absent.
   */
  load(workspaceId: string, ids: readonly string[]): Promise<Map<string, LoadedTarget>>;
  /** What the writer records a run against (evaluation/write.ts; for a span `{ spanId }`). Pure: also for a target that is gone. */
  writerTarget(id: string): W;
}

/** One target of a live batch, loaded. */
export interface LoadedTarget {
  /** Its evaluation document, with `scores` (dependency evaluator name → its scores) as `document.scores`. */
  document(scores: Record<string, Record<string, unknown>> | undefined): Record<string, unknown>;
}

/**
 * The span as a live target: a batch's spans and their traces in one query, each span's document
 * with its trace (spans/document.ts; at most MAX_TRACE_SPANS spans of the trace, earliest first).
 */
export function spanLiveTarget(prisma: PrismaClient): LiveTarget<{ spanId: string }> {
  return {
    async load(workspaceId, ids) {
      const { spans, traces } = await spansAndTraces(prisma, workspaceId, [...ids]);
      const out = new Map<string, LoadedTarget>();
      for (const [id, span] of spans) {
        out.set(id, { document: (scores) => spanToDocument(span, traces.get(span.traceId) ?? [span], { scores: scores ?? {} }) as Record<string, unknown> });
      }
      return out;
    },
    writerTarget: (id) => ({ spanId: id }),
  };
}

/**
 * The spans of a batch and their traces in one query: span id → span (absent when it is gone),
 * and trace id → its spans, earliest first, at most MAX_TRACE_SPANS each.
 */
async function spansAndTraces(prisma: PrismaClient, workspaceId: string, spanIds: string[]): Promise<{ spans: Map<string, Span>; traces: Map<string, Span[]> }> {
  // One round trip: the rows themselves, each flagged whether it is among its trace's first MAX_TRACE_SPANS.
  const rows = await prisma.$queryRaw<(Span & { inTrace?: boolean })[]>`
    SELECT s.*, t.n <= ${MAX_TRACE_SPANS}::int AS "inTrace" FROM (
      SELECT id, row_number() OVER (PARTITION BY "traceId" ORDER BY "startTime", "createdAt") AS n
      FROM "Span" WHERE "workspaceId" = ${workspaceId}::uuid
        AND "traceId" IN (SELECT "traceId" FROM "Span" WHERE "workspaceId" = ${workspaceId}::uuid AND id = ANY(${spanIds}::uuid[]))
    ) t JOIN "Span" s ON s.id = t.id
    WHERE t.n <= ${MAX_TRACE_SPANS}::int OR t.id = ANY(${spanIds}::uuid[])
    ORDER BY s."startTime", s."createdAt"`;
  const wanted = new Set(spanIds);
  const spans = new Map<string, Span>();
  const traces = new Map<string, Span[]>();
  for (const row of rows) {
    const inTrace = row.inTrace;
    delete row.inTrace;
    if (wanted.has(row.id)) spans.set(row.id, row);
    if (!inTrace) continue;
    const list = traces.get(row.traceId) ?? [];
    list.push(row);
    traces.set(row.traceId, list);
  }
  return { spans, traces };
}
