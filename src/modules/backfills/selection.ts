import { Prisma } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { GroupTargetType } from "../../lib/closed-lists.js";
import { matchGroupSpan, type GroupEvaluatorRule } from "../spans/group-touches.js";
import { matchSpan, samplingDraw, type EvaluatorRule, type MatchableSpan } from "../spans/matching.js";
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

/**
 * True when the span passes the backfill's own filter (the parts not already applied in SQL):
 * name pattern, attributes (equal, and lists containing a value), resource attributes and root
 * spans only, by the same conditions as an evaluator's rule (spans/matching.ts).
 */
export function passesFilter(filter: BackfillSpanFilter, span: MatchableSpan): boolean {
  const rule: EvaluatorRule = {
    id: BACKFILL_DRAW_SEED,
    enabled: true,
    spanKind: span.kind,
    spanNamePattern: filter.spanNamePattern ?? null,
    attributeEquals: filter.attributeEquals ?? {},
    attributeContains: filter.attributeContains ?? {},
    resourceAttributeEquals: filter.resourceAttributeEquals ?? {},
    rootSpansOnly: filter.rootSpansOnly ?? false,
    samplingRate: 1,
  };
  return matchSpan(rule, span).matched;
}

/**
 * The filter's run parts as SQL on "Span" rows: the evaluator's current run there ended with one
 * of `outcomes`, and a current score `scoreName` of the evaluator (or of `scoreEvaluatorId`) is in
 * [scoreMin, scoreMax] (numeric value, 1/0 for booleans) or equals `scoreValue`.
 */
function runConditions(filter: BackfillSpanFilter, evaluatorId: string): Prisma.Sql[] {
  const where: Prisma.Sql[] = [];
  if (filter.outcomes?.length) {
    where.push(Prisma.sql`EXISTS (SELECT 1 FROM "Run" r WHERE r."spanId" = "Span".id AND r."evaluatorId" = ${evaluatorId}::uuid AND r.outcome = ANY(${filter.outcomes}::text[]))`);
  }
  if (filter.scoreName !== undefined) {
    const score: Prisma.Sql[] = [Prisma.sql`sc."spanId" = "Span".id`, Prisma.sql`sc."evaluatorId" = ${filter.scoreEvaluatorId ?? evaluatorId}::uuid`, Prisma.sql`sc.name = ${filter.scoreName}`];
    if (filter.scoreMin !== undefined) score.push(Prisma.sql`sc."numericValue" >= ${filter.scoreMin}`);
    if (filter.scoreMax !== undefined) score.push(Prisma.sql`sc."numericValue" <= ${filter.scoreMax}`);
    if (filter.scoreValue !== undefined) score.push(Prisma.sql`sc.value = ${JSON.stringify(filter.scoreValue)}::jsonb`);
    where.push(Prisma.sql`EXISTS (SELECT 1 FROM "Score" sc WHERE ${Prisma.join(score, " AND ")})`);
  }
  return where;
}

/** True when an evaluator's live rule matches the span, `enabled` aside (a backfill is asked for explicitly). */
export function ruleMatches(rule: EvaluatorRule, span: MatchableSpan): boolean {
  return matchSpan({ ...rule, enabled: true }, span).matched;
}

/**
 * The spans a backfill reads, earliest first (start time, then id): the workspace's
 * spans that started in [windowStart, windowEnd), of the rule's kind (and the filter's status,
 * traces, root spans, run outcomes and scores, in SQL), that the evaluator's live rule matches —
 * name pattern, attributes, resource and its own deterministic sampling — and the backfill's
 * filter passes, sampled at `sampleRate`, at most
 * `maxSpans`. Deterministic: the same selection on the same spans gives the same list.
 */
export async function selectSpans(prisma: PrismaClient, selection: SpanSelection): Promise<SelectedSpan[]> {
  const chosen: SelectedSpan[] = [];
  await windowSpans(prisma, selection, (span) => {
    if (!ruleMatches(selection.rule, span) || !passesFilter(selection.filter, span)) return true;
    if (!(backfillDraw(span) < selection.sampleRate)) return true;
    chosen.push(span);
    return chosen.length < selection.maxSpans;
  });
  return chosen;
}

/** A chosen group of a trace or session backfill: its key and its first selected span. */
export interface SelectedGroup {
  key: string;
  span: SelectedSpan;
}

/**
 * The backfill's sampling draw of a group, in [0, 1): `samplingDraw(key, "", "backfill:<target>")`,
 * seeded by the group key only, so a group is taken or left whole, independently of the
 * evaluator's own group sampling (seeded by its id).
 */
export function backfillGroupDraw(target: GroupTargetType, key: string): number {
  return samplingDraw(key, "", `${BACKFILL_DRAW_SEED}:${target}`);
}

/**
 * The groups a backfill of a trace or session evaluator reads, in the order of their first
 * selected span: a group is selected when one of its spans that started in [windowStart,
 * windowEnd) is matched by the evaluator's rule as live ingest matches it (spans/group-touches.ts
 * matchGroupSpan: the rule's conditions, a session span needing a session key, the evaluator's
 * sampling drawn per group) and passes the backfill's filter; then each group is drawn at
 * `sampleRate` ({@link backfillGroupDraw}) and at most `maxSpans` groups are taken (for a group
 * evaluator the limit counts groups). Deterministic, as {@link selectSpans}.
 */
export async function selectGroups(prisma: PrismaClient, selection: SpanSelection & { rule: GroupEvaluatorRule }): Promise<SelectedGroup[]> {
  const chosen: SelectedGroup[] = [];
  const seen = new Set<string>();
  await windowSpans(prisma, selection, (span) => {
    const { decision, key } = matchGroupSpan(selection.rule, span);
    if (!decision.matched || key === null || seen.has(key) || !passesFilter(selection.filter, span)) return true;
    seen.add(key);
    if (!(backfillGroupDraw(selection.rule.target, key) < selection.sampleRate)) return true;
    chosen.push({ key, span });
    return chosen.length < selection.maxSpans;
  });
  return chosen;
}

/**
 * Reads the window's candidate spans earliest first (start time, then id) in keyset pages, those
 * the SQL parts of the rule and filter keep, handing each to `take` until it returns false.
 */
async function windowSpans(prisma: PrismaClient, selection: SpanSelection, take: (span: SelectedSpan) => boolean): Promise<void> {
  const { workspaceId, rule, filter } = selection;
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
    if (filter.rootSpansOnly) where.push(Prisma.sql`"parentSpanId" IS NULL`);
    where.push(...runConditions(filter, rule.id));
    if (after) where.push(Prisma.sql`("startTime", id) > (${after.startTime}, ${after.id}::uuid)`);
    const page = await prisma.$queryRaw<SelectedSpan[]>`
      SELECT id, "traceId", "spanId", "parentSpanId", name, kind, attributes, metadata, "startTime" FROM "Span"
      WHERE ${Prisma.join(where, " AND ")}
      ORDER BY "startTime", id
      LIMIT ${PAGE}`;
    for (const span of page) if (!take(span)) return;
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = { startTime: last.startTime, id: last.id };
  }
}
