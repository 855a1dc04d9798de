import { Prisma } from "../../generated/prisma/client.js";
import type { MonitorMetric } from "../../lib/closed-lists.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { passedSql } from "../dependencies/passed.js";

/**
 * The window aggregates of monitors, in SQL over the runs and scores tables (docs/monitors.md §
 * Reads). Every read is one range scan of an index chosen for it:
 * - one score name: `Score (evaluatorId, name, createdAt, numericValue, dataType, higherIsBetter, spanId)`,
 *   an index-only scan (every column read is in the index);
 * - runs: `Run (evaluatorId, createdAt, outcome, spanId, templateVersionId)`, index-only too;
 * - per template version (baseline previous_version): that run index over the window, then each
 *   run's score by `Score (runId, name)` (a score is written in the same statement as its run, with
 *   the same createdAt, so the run's window is the score's);
 * - backlog: `OwedEvaluation (evaluatorId, createdAt)`.
 * Windows are half-open, [start, end), over the time a run (and its scores) was recorded. Only runs
 * on spans count (live and backfill), never experiment runs.
 */

/** One window of one monitor's metric. */
export interface WindowAggregate {
  /** Values the metric was computed over: scores (pass_rate counts scores with no value as failing), runs that ran (not_ok_share), or the count itself. */
  n: number;
  /** The metric; null when the window gives none (no values; a categorical or off-scale pass rate). */
  value: number | null;
  /** pass_rate: passes; not_ok_share: failed runs (the proportion tests' successes). */
  successes: number;
  /** mean: the sample variance of the values (null below 2 values). */
  variance: number | null;
  /** Score metrics: the direction the scores declare (null when none, or when they disagree: `mixedDirections`). */
  higherIsBetter: boolean | null;
  mixedDirections: boolean;
  /** Why there is no value although there are scores (categorical, or numeric values off the 0–1 scale for a pass rate). */
  noValueReason?: string;
}

/** What one aggregate reads. */
export interface WindowQuery {
  evaluatorId: string;
  scoreName: string | null;
  metric: MonitorMetric;
  /** metric percentile: 0–100. */
  percentile: number | null;
  start: Date;
  end: Date;
  /** The clock's now (backlog_age is read at this time). */
  now: Date;
}

interface ScoreRow {
  n: bigint;
  values: bigint;
  passed: bigint;
  mean: number | null;
  variance: number | null;
  pct: number | null;
  categorical: bigint;
  offScale: bigint;
  hib_all: boolean | null;
  hib_any: boolean | null;
}

const PASSED = Prisma.raw(passedSql("s"));

/** The score aggregate columns (one row), over rows aliased `s`. */
function scoreColumns(percentile: number | null): Prisma.Sql {
  const fraction = percentile === null ? 0.5 : percentile / 100;
  return Prisma.sql`count(*) AS n, count(s."numericValue") AS values,
    count(*) FILTER (WHERE ${PASSED}) AS passed,
    avg(s."numericValue") AS mean, var_samp(s."numericValue") AS variance,
    ${percentile === null ? Prisma.sql`NULL::float8` : Prisma.sql`percentile_cont(${fraction}::float8) WITHIN GROUP (ORDER BY s."numericValue")`} AS pct,
    count(*) FILTER (WHERE s."dataType" = 'CATEGORICAL') AS categorical,
    count(*) FILTER (WHERE s."dataType" = 'NUMERIC' AND (s."numericValue" < 0 OR s."numericValue" > 1)) AS "offScale",
    bool_and(s."higherIsBetter") AS hib_all, bool_or(s."higherIsBetter") AS hib_any`;
}

/** The aggregate of a score row for one metric (docs/scores.md § The passed rule for pass_rate). */
function fromScoreRow(metric: MonitorMetric, row: ScoreRow | undefined): WindowAggregate {
  const n = Number(row?.n ?? 0);
  const values = Number(row?.values ?? 0);
  const higherIsBetter = row && row.hib_all !== null ? (row.hib_all === row.hib_any ? row.hib_all : null) : null;
  const base = { successes: 0, variance: null, higherIsBetter, mixedDirections: Boolean(row && row.hib_all !== row.hib_any) };
  if (!row || n === 0) return { ...base, n: 0, value: null };
  switch (metric) {
    case "pass_rate": {
      if (Number(row.categorical) > 0) return { ...base, n, value: null, noValueReason: "the score is CATEGORICAL: it has no pass rate" };
      if (Number(row.offScale) > 0) return { ...base, n, value: null, noValueReason: "the score has NUMERIC values outside 0–1: a pass at 0.5 means nothing there (watch its mean or a percentile)" };
      return { ...base, n, successes: Number(row.passed), value: Number(row.passed) / n };
    }
    case "mean":
      return { ...base, n: values, value: row.mean === null ? null : Number(row.mean), variance: row.variance === null ? null : Number(row.variance) };
    case "percentile":
      return { ...base, n: values, value: row.pct === null ? null : Number(row.pct) };
    default:
      return { ...base, n, value: n };
  }
}

/** The window filter of score rows `s` of one evaluator's score name, on spans. */
function scoreWhere(q: { evaluatorId: string; scoreName: string; start: Date; end: Date }): Prisma.Sql {
  return Prisma.sql`s."evaluatorId" = ${q.evaluatorId}::uuid AND s.name = ${q.scoreName} AND s."createdAt" >= ${q.start} AND s."createdAt" < ${q.end} AND s."spanId" IS NOT NULL`;
}

/** The window aggregate of one metric. */
export async function windowAggregate(prisma: PrismaClient, q: WindowQuery): Promise<WindowAggregate> {
  const none = { successes: 0, variance: null, higherIsBetter: null, mixedDirections: false };
  if (q.metric === "backlog_age") {
    const [row] = await prisma.$queryRaw<{ n: bigint; oldest: Date | null }[]>`
      SELECT count(*) AS n, min(o."createdAt") AS oldest FROM "OwedEvaluation" o WHERE o."evaluatorId" = ${q.evaluatorId}::uuid`;
    const oldest = row?.oldest ?? null;
    return { ...none, n: Number(row?.n ?? 0), value: oldest ? Math.max(0, (q.now.getTime() - oldest.getTime()) / 1000) : 0 };
  }
  if (q.scoreName !== null) {
    const [row] = await prisma.$queryRaw<ScoreRow[]>`SELECT ${scoreColumns(q.metric === "percentile" ? q.percentile : null)} FROM "Score" s WHERE ${scoreWhere({ ...q, scoreName: q.scoreName })}`;
    return fromScoreRow(q.metric, row);
  }
  // Run metrics: count (runs) and not_ok_share.
  const [row] = await prisma.$queryRaw<{ runs: bigint; ran: bigint; failed: bigint }[]>`
    SELECT count(*) AS runs, count(*) FILTER (WHERE r.outcome <> 'skipped') AS ran, count(*) FILTER (WHERE r.outcome NOT IN ('ok', 'skipped')) AS failed
    FROM "Run" r
    WHERE r."evaluatorId" = ${q.evaluatorId}::uuid AND r."createdAt" >= ${q.start} AND r."createdAt" < ${q.end} AND r."spanId" IS NOT NULL`;
  const runs = Number(row?.runs ?? 0);
  if (q.metric === "count") return { ...none, n: runs, value: runs };
  const ran = Number(row?.ran ?? 0);
  const failed = Number(row?.failed ?? 0);
  return { ...none, n: ran, successes: failed, value: ran ? failed / ran : null };
}

/** One template version's aggregate over a window (baseline previous_version). */
export interface VersionAggregate extends WindowAggregate {
  templateVersionId: string;
  version: number;
}

/**
 * The window aggregate per template version of the evaluator's runs (the runs' own version), for
 * the metrics a drop tests (pass_rate, mean: scores; not_ok_share: runs). Newest version first.
 */
export async function versionAggregates(prisma: PrismaClient, q: WindowQuery): Promise<VersionAggregate[]> {
  if (q.metric === "not_ok_share") {
    const rows = await prisma.$queryRaw<{ tv: string; version: number; ran: bigint; failed: bigint }[]>`
      SELECT r."templateVersionId" AS tv, v.version, count(*) FILTER (WHERE r.outcome <> 'skipped') AS ran, count(*) FILTER (WHERE r.outcome NOT IN ('ok', 'skipped')) AS failed
      FROM "Run" r JOIN "TemplateVersion" v ON v.id = r."templateVersionId"
      WHERE r."evaluatorId" = ${q.evaluatorId}::uuid AND r."createdAt" >= ${q.start} AND r."createdAt" < ${q.end} AND r."spanId" IS NOT NULL
      GROUP BY 1, 2 ORDER BY 2 DESC`;
    return rows.map((r) => {
      const ran = Number(r.ran);
      const failed = Number(r.failed);
      return { templateVersionId: r.tv, version: r.version, n: ran, successes: failed, value: ran ? failed / ran : null, variance: null, higherIsBetter: null, mixedDirections: false };
    });
  }
  if (q.scoreName === null) return [];
  const rows = await prisma.$queryRaw<(ScoreRow & { tv: string; version: number })[]>`
    SELECT r."templateVersionId" AS tv, v.version, ${scoreColumns(null)}
    FROM "Run" r JOIN "Score" s ON s."runId" = r.id AND s.name = ${q.scoreName} JOIN "TemplateVersion" v ON v.id = r."templateVersionId"
    WHERE r."evaluatorId" = ${q.evaluatorId}::uuid AND r."createdAt" >= ${q.start} AND r."createdAt" < ${q.end} AND r."spanId" IS NOT NULL
    GROUP BY 1, 2 ORDER BY 2 DESC`;
  return rows.map((r) => ({ templateVersionId: r.tv, version: r.version, ...fromScoreRow(q.metric, r) }));
}

/** A span or run named by an event as an example of what failed. */
export interface FailingExample {
  runId: string;
  /** The span's row id (a global id is `Span:<id>`), its trace id and its own span id. */
  spanId: string;
  traceId: string;
  otelSpanId: string;
  /** The score's value (score metrics) or the run's outcome and error (not_ok_share, backlog). */
  value: unknown;
  outcome?: string;
  error?: string | null;
  comment?: string | null;
}

/** Examples named per event, at most. */
export const MAX_EXAMPLES = 20;

const clip = (text: string | null, max = 200) => (text === null ? null : text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Up to {@link MAX_EXAMPLES} examples of what made a window bad, newest first: scores that did not
 * pass (pass_rate), the worst values (mean, percentile: lowest when higher is better), runs that
 * failed (not_ok_share), the oldest queued spans (backlog_age); none for count. `templateVersionId`
 * narrows them to one version's runs (previous_version).
 */
export async function failingExamples(prisma: PrismaClient, q: WindowQuery & { higherIsBetter: boolean | null; templateVersionId?: string }): Promise<FailingExample[]> {
  const version = q.templateVersionId ? Prisma.sql`AND r."templateVersionId" = ${q.templateVersionId}::uuid` : Prisma.empty;
  if (q.metric === "backlog_age") {
    const rows = await prisma.$queryRaw<{ spanId: string; traceId: string; otelSpanId: string; createdAt: Date }[]>`
      SELECT o."targetId" AS "spanId", sp."traceId", sp."spanId" AS "otelSpanId", o."createdAt" FROM "OwedEvaluation" o JOIN "Span" sp ON o."targetType" = 'span' AND sp.id = o."targetId"
      WHERE o."evaluatorId" = ${q.evaluatorId}::uuid ORDER BY o."createdAt" LIMIT ${MAX_EXAMPLES}::int`;
    return rows.map((r) => ({ runId: "", spanId: r.spanId, traceId: r.traceId, otelSpanId: r.otelSpanId, value: { queuedAt: r.createdAt.toISOString() }, outcome: "queued" }));
  }
  if (q.metric === "not_ok_share") {
    const rows = await prisma.$queryRaw<{ runId: string; spanId: string; traceId: string; otelSpanId: string; outcome: string; errorType: string | null; errorMessage: string | null }[]>`
      SELECT r.id AS "runId", r."spanId", sp."traceId", sp."spanId" AS "otelSpanId", r.outcome, r."errorType", r."errorMessage"
      FROM "Run" r JOIN "Span" sp ON sp.id = r."spanId"
      WHERE r."evaluatorId" = ${q.evaluatorId}::uuid AND r."createdAt" >= ${q.start} AND r."createdAt" < ${q.end} AND r.outcome NOT IN ('ok', 'skipped') ${version}
      ORDER BY r."createdAt" DESC LIMIT ${MAX_EXAMPLES}::int`;
    return rows.map((r) => ({ runId: r.runId, spanId: r.spanId, traceId: r.traceId, otelSpanId: r.otelSpanId, value: null, outcome: r.outcome, error: clip(r.errorType && r.errorMessage ? `${r.errorType}: ${r.errorMessage}` : (r.errorType ?? r.errorMessage)) }));
  }
  if (q.scoreName === null || q.metric === "count") return [];
  const order = q.metric === "pass_rate" ? Prisma.sql`s."createdAt" DESC` : q.higherIsBetter === false ? Prisma.sql`s."numericValue" DESC NULLS LAST, s."createdAt" DESC` : Prisma.sql`s."numericValue" ASC NULLS LAST, s."createdAt" DESC`;
  const failing = q.metric === "pass_rate" ? Prisma.sql`AND NOT coalesce(${PASSED}, true)` : Prisma.sql`AND s."numericValue" IS NOT NULL`;
  const rows = await prisma.$queryRaw<{ runId: string; spanId: string; traceId: string; otelSpanId: string; value: unknown; comment: string | null }[]>`
    SELECT s."runId", s."spanId", sp."traceId", sp."spanId" AS "otelSpanId", s.value, s.comment
    FROM "Score" s JOIN "Span" sp ON sp.id = s."spanId" ${q.templateVersionId ? Prisma.sql`JOIN "Run" r ON r.id = s."runId"` : Prisma.empty}
    WHERE ${scoreWhere({ ...q, scoreName: q.scoreName })} ${failing} ${version}
    ORDER BY ${order} LIMIT ${MAX_EXAMPLES}::int`;
  return rows.map((r) => ({ runId: r.runId, spanId: r.spanId, traceId: r.traceId, otelSpanId: r.otelSpanId, value: r.value, comment: clip(r.comment) }));
}
