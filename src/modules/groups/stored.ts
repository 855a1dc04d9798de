import { Prisma, type Span } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { GroupCaps } from "../evaluators/group-caps.js";
import { DEFAULT_SESSION_KEYS } from "../evaluators/group-completion.js";
import { settingsOf } from "../evaluators/group-settings.js";
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
 * and the traces the schedule of that key holds of a session evaluator reading the same keys (another
 * evaluator's keys make another session of the same key). Reads the workspace's spans by
 * attribute (no index on it): a tool for one session at a time, not for lists.
 */
export async function sessionTracesOf(prisma: PrismaClient, workspaceId: string, sessionId: string, keys: readonly string[] = DEFAULT_SESSION_KEYS): Promise<Span[][]> {
  return (await sessionsTracesOf(prisma, workspaceId, [sessionId], keys)).get(sessionId) ?? [];
}

/**
 * {@link sessionTracesOf} for a few sessions at once (a backfill's batch), in three queries: each
 * session id to its traces, each earliest first; a session with no trace is absent.
 * @param evaluatorId - the session evaluator whose session it is: only its own schedules' traces are
 *   added (another session evaluator, with other session keys, may list other traces under the same key).
 */
export async function sessionsTracesOf(prisma: PrismaClient, workspaceId: string, sessionIds: readonly string[], keys: readonly string[] = DEFAULT_SESSION_KEYS, evaluatorId?: string): Promise<Map<string, Span[][]>> {
  const out = new Map<string, Span[][]>();
  if (sessionIds.length === 0) return out;
  const own = evaluatorId ? Prisma.sql`AND "evaluatorId" = ${evaluatorId}::uuid` : Prisma.empty;
  const [keyed, scheduled] = await Promise.all([
    prisma.$queryRaw<{ sessionId: string; traceId: string }[]>`
      SELECT DISTINCT s.attributes->>k AS "sessionId", s."traceId" FROM "Span" s, unnest(${[...keys]}::text[]) AS k
        WHERE s."workspaceId" = ${workspaceId}::uuid AND s.attributes->>k = ANY(${[...sessionIds]}::text[])`,
    prisma.$queryRaw<{ sessionId: string; traceId: string; evaluatorId: string }[]>`
      SELECT DISTINCT "groupKey" AS "sessionId", unnest("traceIds") AS "traceId", "evaluatorId" FROM "GroupSchedule"
        WHERE "workspaceId" = ${workspaceId}::uuid AND "targetType" = 'session' AND "groupKey" = ANY(${[...sessionIds]}::text[]) ${own}`,
  ]);
  // Without an evaluator (tryCode): only the schedules of session evaluators reading the same session keys; another
  // evaluator's keys make another session of the same key.
  const sameKeys = evaluatorId ? null : await evaluatorsWithKeys(prisma, workspaceId, [...new Set(scheduled.map((r) => r.evaluatorId))], keys);
  const rows = [...keyed, ...scheduled.filter((r) => sameKeys === null || sameKeys.has(r.evaluatorId))];
  if (rows.length === 0) return out;
  const spans = await prisma.span.findMany({ where: { workspaceId, traceId: { in: [...new Set(rows.map((r) => r.traceId))] } }, orderBy: [{ startTime: "asc" }, { createdAt: "asc" }] });
  const byTrace = spansByTrace(spans);
  const traceIdsOf = new Map<string, Set<string>>();
  for (const r of rows) traceIdsOf.set(r.sessionId, (traceIdsOf.get(r.sessionId) ?? new Set()).add(r.traceId));
  for (const [sessionId, traceIds] of traceIdsOf) {
    // The traces in the order of their first span, as one session's read gives them.
    const traces = [...byTrace.entries()].filter(([traceId]) => traceIds.has(traceId)).map(([, list]) => list);
    if (traces.length) out.set(sessionId, traces);
  }
  return out;
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

/** Of `evaluatorIds`, those whose session key attributes are `keys` (in any order). */
async function evaluatorsWithKeys(prisma: PrismaClient, workspaceId: string, evaluatorIds: readonly string[], keys: readonly string[]): Promise<Set<string>> {
  if (evaluatorIds.length === 0) return new Set();
  const asked = [...new Set(keys)].sort().join("\u0000");
  const evaluators = await prisma.evaluator.findMany({ where: { workspaceId, id: { in: [...evaluatorIds] } }, select: { id: true, groupSettings: true } });
  return new Set(evaluators.filter((e) => [...new Set(settingsOf("session", e.groupSettings).sessionKeyAttributes)].sort().join("\u0000") === asked).map((e) => e.id));
}
