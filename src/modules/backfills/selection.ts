import { Prisma } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { attributeValue, globToRegExp, matchSpan, samplingDraw, type EvaluatorRule, type MatchableSpan } from "../spans/matching.js";
import type { BackfillSpanFilter } from "./schemas.js";

/** Spans read per query while selecting (keyset pages by start time, then id). */
const PAGE = 2_000;

/** The seed of a backfill's own sampling draw: one per span, independent of any evaluator's. */
export const BACKFILL_DRAW_SEED = "backfill";

/** What chooses a backfill's spans. */
export interface SpanSelection {
  workspaceId: string;
  /** The evaluator's live rule (kind, name pattern, attributes, sampling); `enabled` is not applied. */
  rule: EvaluatorRule;
  windowStart: Date;
  windowEnd: Date;
  filter: BackfillSpanFilter;
  sampleRate: number;
  maxSpans: number;
}

/** A chosen span: its row id and what a rule reads of it. */
export type SelectedSpan = MatchableSpan & { id: string; startTime: Date };

/**
 * The backfill's sampling draw of a span, in [0, 1): `samplingDraw(traceId, spanId, "backfill")`
 * (SHA-256 of the span's own ids, see spans/matching.ts). It does not depend on the evaluator, so
 * the evaluator's own sampling and the backfill's are independent (a span is read with
 * probability samplingRate × sampleRate), and a backfill at the same rate reads the same spans.
 */
export function backfillDraw(span: Pick<MatchableSpan, "traceId" | "spanId">): number {
  return samplingDraw(span.traceId, span.spanId, BACKFILL_DRAW_SEED);
}

/** True when the span passes the backfill's own filter (the parts not already applied in SQL). */
export function passesFilter(filter: BackfillSpanFilter, span: MatchableSpan): boolean {
  if (filter.spanNamePattern && !globToRegExp(filter.spanNamePattern).test(span.name)) return false;
  for (const [key, value] of Object.entries(filter.attributeEquals ?? {})) if (attributeValue(span.attributes, key) !== value) return false;
  return true;
}

/** True when an evaluator's live rule matches the span, `enabled` aside (a backfill is asked for explicitly). */
export function ruleMatches(rule: EvaluatorRule, span: MatchableSpan): boolean {
  return matchSpan({ ...rule, enabled: true }, span).matched;
}

/**
 * The spans a backfill reads, earliest first (start time, then id): the workspace's
 * spans that started in [windowStart, windowEnd), of the rule's kind (and the filter's status and
 * traces, in SQL), that the evaluator's live rule matches — name pattern, attributes and its own
 * deterministic sampling — and the backfill's filter passes, sampled at `sampleRate`, at most
 * `maxSpans`. Deterministic: the same selection on the same spans gives the same list.
 */
export async function selectSpans(prisma: PrismaClient, selection: SpanSelection): Promise<SelectedSpan[]> {
  const { workspaceId, rule, filter } = selection;
  const chosen: SelectedSpan[] = [];
  let after: { startTime: Date; id: string } | null = null;
  for (;;) {
    const where: Prisma.Sql[] = [
      Prisma.sql`"workspaceId" = ${workspaceId}::uuid`,
      Prisma.sql`"startTime" >= ${selection.windowStart}`,
      Prisma.sql`"startTime" < ${selection.windowEnd}`,
      Prisma.sql`kind = ${rule.spanKind}`,
    ];
    if (filter.status) where.push(Prisma.sql`status = ${filter.status}`);
    if (filter.traceIds?.length) where.push(Prisma.sql`"traceId" = ANY(${filter.traceIds}::text[])`);
    if (after) where.push(Prisma.sql`("startTime", id) > (${after.startTime}, ${after.id}::uuid)`);
    const page = await prisma.$queryRaw<SelectedSpan[]>`
      SELECT id, "traceId", "spanId", name, kind, attributes, "startTime" FROM "Span"
      WHERE ${Prisma.join(where, " AND ")}
      ORDER BY "startTime", id
      LIMIT ${PAGE}`;
    for (const span of page) {
      if (!ruleMatches(rule, span) || !passesFilter(filter, span)) continue;
      if (!(backfillDraw(span) < selection.sampleRate)) continue;
      chosen.push(span);
      if (chosen.length >= selection.maxSpans) return chosen;
    }
    if (page.length < PAGE) return chosen;
    const last = page[page.length - 1]!;
    after = { startTime: last.startTime, id: last.id };
  }
}
