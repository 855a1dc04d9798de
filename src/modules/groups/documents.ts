// TEMPORARY stand-in, replaced by the groupdocs branch at merge.
import type { Span } from "../../generated/prisma/client.js";
import { spanToDocument, type SampleDocument } from "../spans/document.js";

export interface DocumentCaps { maxSpans: number; maxTurns: number; maxDocumentBytes: number }

export function traceDocument(spans: readonly Span[], caps: DocumentCaps, extras: { completion?: string } = {}): SampleDocument {
  const kept = spans.slice(0, caps.maxSpans);
  const root = kept.find((s) => !s.parentSpanId) ?? kept[0]!;
  const doc = spanToDocument(root, kept);
  (doc.trace as Record<string, unknown>).capped = kept.length < spans.length;
  (doc.trace as Record<string, unknown>).completion = extras.completion;
  return doc;
}

export function sessionDocument(sessionId: string, traces: readonly (readonly Span[])[], caps: DocumentCaps, extras: { completion?: string } = {}): SampleDocument {
  const last = traces[traces.length - 1] ?? [];
  const doc = traceDocument(last, caps, extras);
  (doc as Record<string, unknown>).session = { id: sessionId, traces: [], capped: false };
  return doc;
}
