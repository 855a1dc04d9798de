import type { Span } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { GroupCaps } from "../evaluators/group-caps.js";
import { DEFAULT_SESSION_KEYS } from "../evaluators/group-completion.js";
import type { SampleDocument } from "../spans/document.js";
import { sessionDocument, traceDocument } from "./documents.js";

/**
 * The documents of a stored trace or session, as the live group processor builds them
 * (documents.ts with the same caps), for tryCode and the API. The only difference from a live run's
 * is `completion`, which a draft has none of.
 */

/** The spans of a trace, earliest first (every one: the caps cut them in the document). */
export function traceSpansOf(prisma: PrismaClient, workspaceId: string, traceId: string): Promise<Span[]> {
  return prisma.span.findMany({ where: { workspaceId, traceId }, orderBy: [{ startTime: "asc" }, { createdAt: "asc" }] });
}

/**
 * The traces of a session, each its spans earliest first: the traces one of whose spans carries
 * the key (a flat attribute named by `keys`, `session.id` or `gen_ai.conversation.id` by default),
 * and the traces a session evaluator's schedule of that key holds. Reads the workspace's spans by
 * attribute (no index on it): a tool for one session at a time, not for lists.
 */
export async function sessionTracesOf(prisma: PrismaClient, workspaceId: string, sessionId: string, keys: readonly string[] = DEFAULT_SESSION_KEYS): Promise<Span[][]> {
  const rows = await prisma.$queryRaw<{ traceId: string }[]>`
    SELECT DISTINCT s."traceId" FROM "Span" s, unnest(${[...keys]}::text[]) AS k WHERE s."workspaceId" = ${workspaceId}::uuid AND s.attributes->>k = ${sessionId}
    UNION SELECT DISTINCT unnest("traceIds") FROM "GroupSchedule" WHERE "workspaceId" = ${workspaceId}::uuid AND "targetType" = 'session' AND "groupKey" = ${sessionId}`;
  if (rows.length === 0) return [];
  const spans = await prisma.span.findMany({ where: { workspaceId, traceId: { in: rows.map((r) => r.traceId) } }, orderBy: [{ startTime: "asc" }, { createdAt: "asc" }] });
  return [...spansByTrace(spans).values()];
}

/** Spans by trace id, each trace's in the given order; traces in the order of their first span given. */
export function spansByTrace<S extends { traceId: string }>(spans: readonly S[]): Map<string, S[]> {
  const byTrace = new Map<string, S[]>();
  for (const span of spans) {
    const list = byTrace.get(span.traceId);
    if (list) list.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  return byTrace;
}

/** The document of a stored trace; null when the workspace has no span of it. */
export async function storedTraceDocument(prisma: PrismaClient, workspaceId: string, traceId: string, caps: Readonly<GroupCaps>): Promise<SampleDocument | null> {
  const spans = await traceSpansOf(prisma, workspaceId, traceId);
  return spans.length ? traceDocument(spans, caps) : null;
}

/** The document of a stored session; null when no trace of the workspace belongs to it. */
export async function storedSessionDocument(prisma: PrismaClient, workspaceId: string, sessionId: string, caps: Readonly<GroupCaps>, keys?: readonly string[]): Promise<SampleDocument | null> {
  const traces = await sessionTracesOf(prisma, workspaceId, sessionId, keys);
  return traces.length ? sessionDocument(sessionId, traces, caps) : null;
}
