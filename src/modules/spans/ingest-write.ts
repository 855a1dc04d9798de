import { randomInt } from "node:crypto";
import { Prisma } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { SkipReason } from "./matching.js";
import type { NormalisedSpan } from "./schemas.js";
import type { GroupTouch } from "./group-touches.js";

/**
 * Rows of match counts per evaluator (EvaluatorMatchStats.shard: 0 to 15, its CHECK in the
 * migration): an ingest adds to one drawn at random, so concurrent ingests of a workspace mostly
 * lock different rows; reads sum them (runs/service.ts).
 */
export const MATCH_STATS_SHARDS = 16;

/** One distinct span of an ingest batch and how every live evaluator's rule met it. */
export interface IngestRow {
  /** The id the span gets if it is new (an existing span keeps its own). */
  id: string;
  span: NormalisedSpan;
  /** One per evaluator: matched, or the first condition that failed. */
  decisions: { evaluatorId: string; matched: boolean; reason?: SkipReason }[];
  /** The matched code evaluators the span owes a run (external ones owe nothing), each with the batch job that queues it (null: the pair's own job). */
  owes: { evaluatorId: string; jobId: string | null }[];
  /** Its touches of trace and session evaluators' groups (group-touches.ts); counted when the span is new. */
  groups?: GroupTouch[];
}

/** What {@link writeIngestBatch} did. */
export interface IngestWriteResult {
  /** Span key (trace id NUL span id) → its stored id, and whether this statement created it. */
  ids: Map<string, { id: string; created: boolean }>;
  /** Owed evaluations created for new spans. */
  owedNew: number;
  /** Owed evaluations created for spans sent again (no run yet, not owed already). */
  owedAgain: number;
  /** The workspace's OwedEvaluation rows before this statement: count and oldest createdAt. */
  backlogBefore: { queued: number; oldest: Date | null };
}

/**
 * How a group's schedule moves when spans arrive (the ON CONFLICT update of GroupSchedule; `gs` is
 * the row as it was, EXCLUDED the batch's touch of it). "Next round": the pending generation was
 * already queued (or ran), so these spans start the next one — the group is stale and runs again.
 * - generation + 1 on a next round; firstSpanAt restarts with it (the maximum wait counts from it);
 * - lastSpanAt = now (never earlier than it was: arrivals of two instances may commit out of order), spanCount adds the batch's spans, traceIds adds its traces
 *   (kept as it is when it holds them: a large session's array is neither re-sorted nor re-TOASTed per span, 0.4 ms instead of 37 ms at 20,000 traces);
 * - markerAt: the batch's marker on a next round, else the round's first marker;
 * - staleSince: set on the first next round (its spans came after the queued round's; cleared
 *   when the run of the newest generation is written);
 * - dueAt: the marker when there is one, else min(lastSpanAt + quiet period, firstSpanAt + maximum wait).
 * Every SET expression reads the old row, so each derived value repeats the next-round test.
 */
const NEXT_ROUND = `(gs."queuedGeneration" IS NOT DISTINCT FROM gs.generation)`;
const ROUND_FIRST = `(CASE WHEN ${NEXT_ROUND} THEN EXCLUDED."firstSpanAt" ELSE gs."firstSpanAt" END)`;
const ROUND_MARKER = `(CASE WHEN ${NEXT_ROUND} THEN EXCLUDED."markerAt" ELSE coalesce(gs."markerAt", EXCLUDED."markerAt") END)`;
const GROUP_SCHEDULE_SQL = Prisma.raw(`
        generation = gs.generation + ${NEXT_ROUND}::int,
        "firstSpanAt" = ${ROUND_FIRST},
        "lastSpanAt" = greatest(gs."lastSpanAt", EXCLUDED."lastSpanAt"),
        "spanCount" = gs."spanCount" + EXCLUDED."spanCount",
        "traceIds" = CASE WHEN gs."traceIds" @> EXCLUDED."traceIds" THEN gs."traceIds" ELSE ARRAY(SELECT DISTINCT x FROM unnest(gs."traceIds" || EXCLUDED."traceIds") AS x ORDER BY x) END,
        "quietPeriodMs" = EXCLUDED."quietPeriodMs",
        "maxWaitMs" = EXCLUDED."maxWaitMs",
        "markerAt" = ${ROUND_MARKER},
        "staleSince" = CASE WHEN ${NEXT_ROUND} THEN coalesce(gs."staleSince", EXCLUDED."lastSpanAt") ELSE gs."staleSince" END,
        "dueAt" = coalesce(${ROUND_MARKER}, least(greatest(gs."lastSpanAt", EXCLUDED."lastSpanAt") + make_interval(secs => EXCLUDED."quietPeriodMs" / 1000.0), ${ROUND_FIRST} + make_interval(secs => EXCLUDED."maxWaitMs" / 1000.0)))`);

/** The key of a span within a workspace. */
export function spanKey(traceId: string, spanId: string): string {
  return `${traceId}\u0000${spanId}`;
}

/**
 * Writes an ingest batch in ONE statement (so one round trip, atomic without a transaction, and
 * the match-stats row locks held for that statement only): inserts the spans that are new (an
 * existing trace and span id keeps its row), inserts the owed evaluations of the new spans, and
 * of the spans sent again the pairs with no run that are not owed already, and adds the counts to
 * a shard of the evaluators' match stats — every decision of a new span, plus one match per pair
 * owed again (so `spansMatched` counts each span an evaluator was queued on once) — and writes
 * the new spans' touches of trace and session groups into GroupSchedule ({@link GROUP_SCHEDULE_SQL}).
 * It also reads the workspace's backlog as it was before.
 * A span that a concurrent ingest inserted after this statement's snapshot is neither created nor
 * seen here: its key is missing from `ids` (the caller writes those rows again, as sent again).
 * @param now - createdAt of the spans and owed rows (the app's clock, UTC, as Prisma writes it).
 * @param arrivedAt - the spans' arrival for trace and session groups (default `now`; a test's clock moves it).
 * @throws the database error (nothing of the batch is written then).
 */
export async function writeIngestBatch(prisma: Pick<PrismaClient, "$queryRaw">, workspaceId: string, rows: readonly IngestRow[], now: Date, arrivedAt: Date = now): Promise<IngestWriteResult> {
  const spans = rows.map(({ id, span }) => ({
    id,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    startTime: span.startTime.toISOString(),
    endTime: span.endTime ? span.endTime.toISOString() : null,
    input: span.input ?? null,
    output: span.output ?? null,
    attributes: span.attributes,
    metadata: span.metadata,
    status: span.status,
  }));
  const decisions = rows.flatMap(({ id, decisions }) => decisions.map((d) => ({ id, e: d.evaluatorId, r: d.matched ? "matched" : d.reason! })));
  const owes = rows.flatMap(({ id, span, owes }) => owes.map((o) => ({ id, t: span.traceId, s: span.spanId, e: o.evaluatorId, j: o.jobId })));
  const groups = rows.flatMap((r) => r.groups ?? []);
  const at = now.toISOString();
  const arrived = arrivedAt.toISOString();
  const shard = randomInt(MATCH_STATS_SHARDS);
  const [row] = await prisma.$queryRaw<{ created: string[] | null; existing: { id: string; t: string; s: string }[] | null; owedNew: number; owedAgain: number; queued: number; oldest: Date | null }[]>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(spans)}::jsonb) AS x(id uuid, "traceId" text, "spanId" text, "parentSpanId" text, name text,
        kind text, "startTime" timestamp(3), "endTime" timestamp(3), input jsonb, output jsonb, attributes jsonb, metadata jsonb, status text)
    ), existing AS (
      SELECT s.id, s."traceId", s."spanId" FROM "Span" s JOIN input i ON s."workspaceId" = ${workspaceId}::uuid AND s."traceId" = i."traceId" AND s."spanId" = i."spanId"
    ), created AS (
      INSERT INTO "Span" (id, "workspaceId", "traceId", "spanId", "parentSpanId", name, kind, "startTime", "endTime", input, output, attributes, metadata, status, "createdAt")
      SELECT id, ${workspaceId}::uuid, "traceId", "spanId", "parentSpanId", name, kind, "startTime", "endTime", input, output, attributes, metadata, status, ${at}::timestamp(3)
      FROM input
      ON CONFLICT ("workspaceId", "traceId", "spanId") DO NOTHING
      RETURNING id
    ), owes AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(owes)}::jsonb) AS o(id uuid, t text, s text, e uuid, j text)
    ), owed_new AS (
      INSERT INTO "OwedEvaluation" ("targetType", "targetId", "evaluatorId", "workspaceId", "createdAt", "jobId")
      SELECT 'span', o.id, o.e, ${workspaceId}::uuid, ${at}::timestamp(3), o.j FROM owes o JOIN created c ON c.id = o.id
      ON CONFLICT DO NOTHING
      RETURNING "evaluatorId"
    ), owed_again AS (
      INSERT INTO "OwedEvaluation" ("targetType", "targetId", "evaluatorId", "workspaceId", "createdAt", "jobId")
      SELECT 'span', x.id, o.e, ${workspaceId}::uuid, ${at}::timestamp(3), o.j FROM owes o JOIN existing x ON x."traceId" = o.t AND x."spanId" = o.s
      WHERE NOT EXISTS (SELECT 1 FROM "Run" r WHERE r."spanId" = x.id AND r."evaluatorId" = o.e)
      ON CONFLICT DO NOTHING
      RETURNING "evaluatorId"
    ), counts AS (
      SELECT d.e,
        count(*) FILTER (WHERE d.r = 'matched') AS matched, count(*) FILTER (WHERE d.r = 'disabled') AS disabled,
        count(*) FILTER (WHERE d.r = 'kind') AS kind, count(*) FILTER (WHERE d.r = 'name') AS name,
        count(*) FILTER (WHERE d.r = 'attributes') AS attributes, count(*) FILTER (WHERE d.r = 'sampling') AS sampling,
        count(*) FILTER (WHERE d.r = 'root') AS root, count(*) FILTER (WHERE d.r = 'resource') AS resource
      FROM jsonb_to_recordset(${JSON.stringify(decisions)}::jsonb) AS d(id uuid, e uuid, r text) JOIN created c ON c.id = d.id
      GROUP BY d.e
      UNION ALL
      SELECT "evaluatorId", count(*), 0, 0, 0, 0, 0, 0, 0 FROM owed_again GROUP BY 1
    ), touches AS (
      SELECT g.* FROM jsonb_to_recordset(${JSON.stringify(groups)}::jsonb) AS g(id uuid, e uuid, tt text, k text, tr text, m boolean, mk boolean, q int, w int)
      JOIN created c ON c.id = g.id
    ), resolved AS (
      -- A session span without the key touches the sessions that hold its trace.
      SELECT t.e, t.tt, t.k, t.tr, t.m, t.mk, t.q, t.w FROM touches t WHERE t.k IS NOT NULL
      UNION ALL
      SELECT t.e, t.tt, gs."groupKey", t.tr, false, t.mk, t.q, t.w FROM touches t
      JOIN "GroupSchedule" gs ON t.k IS NULL AND gs."evaluatorId" = t.e AND gs."targetType" = t.tt AND gs."traceIds" @> ARRAY[t.tr]
    ), group_rows AS (
      SELECT e, tt, k, array_agg(DISTINCT tr ORDER BY tr) AS trs, count(*)::int AS n, bool_or(m) AS m, bool_or(mk) AS mk, max(q) AS q, max(w) AS w
      FROM resolved GROUP BY e, tt, k
    ), group_write AS (
      INSERT INTO "GroupSchedule" AS gs (id, "workspaceId", "evaluatorId", "targetType", "groupKey", "traceIds", "firstSpanAt", "lastSpanAt", "spanCount",
        "quietPeriodMs", "maxWaitMs", "markerAt", "dueAt")
      SELECT gen_random_uuid(), ${workspaceId}::uuid, g.e, g.tt, g.k, g.trs, ${arrived}::timestamp(3), ${arrived}::timestamp(3), g.n, g.q, g.w,
        CASE WHEN g.mk THEN ${arrived}::timestamp(3) END,
        CASE WHEN g.mk THEN ${arrived}::timestamp(3) ELSE ${arrived}::timestamp(3) + make_interval(secs => least(g.q, g.w) / 1000.0) END
      FROM group_rows g
      -- A group no matching span took is only extended, never created.
      WHERE g.m OR EXISTS (SELECT 1 FROM "GroupSchedule" x WHERE x."evaluatorId" = g.e AND x."targetType" = g.tt AND x."groupKey" = g.k)
      ORDER BY g.e, g.tt, g.k
      ON CONFLICT ("evaluatorId", "targetType", "groupKey") DO UPDATE SET ${GROUP_SCHEDULE_SQL}
      RETURNING 1
    ), stats AS (
      -- In evaluator id order, so two ingests that drew the same shard lock its rows in one order.
      INSERT INTO "EvaluatorMatchStats" AS s ("evaluatorId", "shard", "workspaceId", "spansMatched", "skippedDisabled", "skippedKind",
        "skippedName", "skippedAttributes", "skippedSampling", "skippedRoot", "skippedResource", "lastMatchedAt", "lastSeenAt")
      SELECT e, ${shard}::int, ${workspaceId}::uuid, sum(matched), sum(disabled), sum(kind), sum(name), sum(attributes), sum(sampling), sum(root), sum(resource),
        CASE WHEN sum(matched) > 0 THEN now() AT TIME ZONE 'UTC' END, now() AT TIME ZONE 'UTC'
      FROM counts GROUP BY e ORDER BY e
      ON CONFLICT ("evaluatorId", "shard") DO UPDATE SET
        "spansMatched" = s."spansMatched" + EXCLUDED."spansMatched",
        "skippedDisabled" = s."skippedDisabled" + EXCLUDED."skippedDisabled",
        "skippedKind" = s."skippedKind" + EXCLUDED."skippedKind",
        "skippedName" = s."skippedName" + EXCLUDED."skippedName",
        "skippedAttributes" = s."skippedAttributes" + EXCLUDED."skippedAttributes",
        "skippedSampling" = s."skippedSampling" + EXCLUDED."skippedSampling",
        "skippedRoot" = s."skippedRoot" + EXCLUDED."skippedRoot",
        "skippedResource" = s."skippedResource" + EXCLUDED."skippedResource",
        "lastMatchedAt" = COALESCE(EXCLUDED."lastMatchedAt", s."lastMatchedAt"),
        "lastSeenAt" = EXCLUDED."lastSeenAt"
      RETURNING 1
    )
    SELECT
      (SELECT json_agg(id) FROM created) AS created,
      (SELECT json_agg(json_build_object('id', id, 't', "traceId", 's', "spanId")) FROM existing) AS existing,
      (SELECT count(*) FROM owed_new)::int AS "owedNew",
      (SELECT count(*) FROM owed_again)::int AS "owedAgain",
      (SELECT count(*) FROM group_write)::int AS "groupsTouched",
      (SELECT count(*) FROM "OwedEvaluation" WHERE "workspaceId" = ${workspaceId}::uuid)::int AS queued,
      (SELECT min("createdAt") FROM "OwedEvaluation" WHERE "workspaceId" = ${workspaceId}::uuid) AS oldest`;
  const created = new Set(row?.created ?? []);
  const ids = new Map<string, { id: string; created: boolean }>();
  for (const { id, span } of rows) if (created.has(id)) ids.set(spanKey(span.traceId, span.spanId), { id, created: true });
  for (const x of row?.existing ?? []) ids.set(spanKey(x.t, x.s), { id: x.id, created: false });
  return { ids, owedNew: row?.owedNew ?? 0, owedAgain: row?.owedAgain ?? 0, backlogBefore: { queued: row?.queued ?? 0, oldest: row?.oldest ?? null } };
}
