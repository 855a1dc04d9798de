import type { PrismaClient } from "../../lib/prisma.js";
import { dependencyWaits } from "../spans/waiting.js";
import { isUuid } from "../../lib/uuid.js";
import { INVOCATION_CAP_REASON, RUN_OUTCOMES, type RunOutcome } from "../evaluation/record.js";
import { kindTraits } from "../evaluators/kinds.js";

export type { RunUsage } from "../evaluation/record.js";
import { SPEND_CAP_REASON, spentLastHour } from "../judges/spend.js";
import { roundUsd } from "../judges/prices.js";

/** A score summary row as the service returns it (experiments and backfills; runs/score-summary.ts). */
export type { ScoreSummaryBase } from "./score-summary.js";

/** Per evaluator on live spans: how spans met its rule, and what its runs ended with. */
export interface EvaluatorStats {
  /** Spans that met the rule and were sampled, each once: new ones, and re-sent ones queued for it because it had no run on them. */
  spansMatched: number;
  /** New spans it did not run on, by the first condition they failed. */
  skippedDisabled: number;
  skippedKind: number;
  skippedName: number;
  /** Spans with a parent while the rule wants root spans only. */
  skippedRoot: number;
  skippedAttributes: number;
  /** Spans whose resource attributes differ from resourceAttributeEquals. */
  skippedResource: number;
  skippedSampling: number;
  /** Runs recorded as skipped because the evaluator's maxInvocationsPerHour was reached. */
  skippedInvocationCap: number;
  /** Every run on a live span, and by outcome (every outcome listed, zeros included). */
  runs: number;
  runsByOutcome: { outcome: RunOutcome; count: number }[];
  /** Matched spans without a run yet: queued or running (never negative). */
  pending: number;
  /** Evaluations owed to it and not yet run (OwedEvaluation rows): its live backlog. */
  queued: number;
  /** Seconds since its oldest queued evaluation was queued (its lag); 0 when none is. */
  oldestQueuedSeconds: number;
  /** Of those, spans where it waits for a dependency (scores not posted, or a dependency still queued). */
  waiting: number;
  /** When the oldest of those waits began (null when none waits). */
  waitingSince: Date | null;
  /** When the first of those waits' safety net expires (then it runs with what there is). */
  nextWaitExpiresAt: Date | null;
  lastMatchedAt: Date | null;
  lastSeenAt: Date | null;
  /** When its last run on a live span finished. */
  lastRunAt: Date | null;
}

/** A judge evaluator's calls on live targets (spans, traces, sessions), from Run.usage. */
export interface JudgeStats {
  /** Runs that called the provider (a cache miss that got an answer, valid or not). */
  calls: number;
  /** Runs served by the result cache (no call, no cost). */
  cacheHits: number;
  /** cacheHits / (calls + cacheHits); 0 when neither. */
  cacheHitRate: number;
  inputTokens: number;
  outputTokens: number;
  /** US dollars of the calls with a price (Run.usage.costUsd summed). */
  costUsd: number;
  /** Calls whose model has no price (their costUsd is null: not counted in costUsd). */
  unpricedCalls: number;
  /** US dollars spent in the last rolling hour (what maxCostPerHourUsd is checked against). */
  costLastHourUsd: number;
  /** Runs recorded as skipped because maxCostPerHourUsd was reached. */
  skippedSpendCap: number;
}

/** Reading runs: per-evaluator statistics ("why did nothing run" from the API). */
export function createRunService(deps: { prisma: PrismaClient }) {
  const { prisma } = deps;
  return {
    /**
     * A judge evaluator's calls, cache hits, tokens and cost over its live runs (Run.usage), in
     * one query; the last hour's spend as the spend cap reads it (judges/spend.ts). Null for an
     * evaluator of another kind (or none).
     */
    async judgeStats(evaluatorId: string, now = new Date()): Promise<JudgeStats | null> {
      const evaluator = await prisma.evaluator.findUnique({ where: { id: evaluatorId }, select: { kind: true } });
      if (!evaluator || !kindTraits(evaluator.kind).usesConnection) return null;
      const [row] = await prisma.$queryRaw<{ calls: number; hits: number; input: number; output: number; cost: number; unpriced: number; capped: number }[]>`
        SELECT count(*) FILTER (WHERE usage IS NOT NULL AND NOT (usage->>'cached')::boolean)::int AS calls,
               count(*) FILTER (WHERE (usage->>'cached')::boolean)::int AS hits,
               coalesce(sum((usage->>'inputTokens')::float8), 0)::float8 AS input,
               coalesce(sum((usage->>'outputTokens')::float8), 0)::float8 AS output,
               coalesce(sum((usage->>'costUsd')::float8), 0)::float8 AS cost,
               count(*) FILTER (WHERE usage IS NOT NULL AND usage->'costUsd' = 'null'::jsonb)::int AS unpriced,
               count(*) FILTER (WHERE outcome = 'skipped' AND "skipReason" LIKE ${`${SPEND_CAP_REASON}%`})::int AS capped
        FROM "Run" WHERE "evaluatorId" = ${evaluatorId}::uuid AND "experimentId" IS NULL`;
      const calls = row?.calls ?? 0;
      const hits = row?.hits ?? 0;
      return {
        calls, cacheHits: hits, cacheHitRate: calls + hits ? hits / (calls + hits) : 0, inputTokens: row?.input ?? 0, outputTokens: row?.output ?? 0,
        costUsd: roundUsd(row?.cost ?? 0), unpricedCalls: row?.unpriced ?? 0, costLastHourUsd: roundUsd(await spentLastHour(prisma, evaluatorId, now)), skippedSpendCap: row?.capped ?? 0,
      };
    },

    /**
     * The statistics of an evaluator of the workspace, or null when there is no such evaluator.
     * Spans are counted when they arrive; a span sent again counts as matched only when it is
     * queued for this evaluator then (no run on it yet), so `runs` never exceeds `spansMatched`
     * through re-sends, and never twice.
     */
    async evaluatorStats(workspaceId: string, evaluatorId: string): Promise<EvaluatorStats | null> {
      if (!isUuid(evaluatorId)) return null;
      const evaluator = await prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId }, select: { id: true } });
      if (!evaluator) return null;
      const [stats, groups, last, capped, owed, waits] = await Promise.all([
        // The counts are kept in shards (spans/ingest-write.ts): their sums, and the latest times.
        prisma.evaluatorMatchStats.aggregate({
          where: { evaluatorId },
          _sum: { spansMatched: true, skippedDisabled: true, skippedKind: true, skippedName: true, skippedRoot: true, skippedAttributes: true, skippedResource: true, skippedSampling: true },
          _max: { lastMatchedAt: true, lastSeenAt: true },
        }),
        prisma.run.groupBy({ by: ["outcome"], where: { evaluatorId, spanId: { not: null } }, _count: { _all: true } }),
        prisma.run.aggregate({ where: { evaluatorId, spanId: { not: null } }, _max: { finishedAt: true } }),
        prisma.run.count({ where: { evaluatorId, spanId: { not: null }, outcome: "skipped", skipReason: { startsWith: INVOCATION_CAP_REASON } } }),
        prisma.owedEvaluation.aggregate({ where: { evaluatorId }, _count: { _all: true }, _min: { createdAt: true } }),
        dependencyWaits(prisma, workspaceId, { evaluatorId }),
      ]);
      const oldest = owed._min.createdAt;
      const counts = new Map(groups.map((g) => [g.outcome, g._count._all]));
      const runs = groups.reduce((n, g) => n + g._count._all, 0);
      const spansMatched = stats._sum.spansMatched ?? 0;
      return {
        spansMatched,
        skippedDisabled: stats._sum.skippedDisabled ?? 0,
        skippedKind: stats._sum.skippedKind ?? 0,
        skippedName: stats._sum.skippedName ?? 0,
        skippedRoot: stats._sum.skippedRoot ?? 0,
        skippedAttributes: stats._sum.skippedAttributes ?? 0,
        skippedResource: stats._sum.skippedResource ?? 0,
        skippedSampling: stats._sum.skippedSampling ?? 0,
        skippedInvocationCap: capped,
        runs,
        runsByOutcome: RUN_OUTCOMES.map((outcome) => ({ outcome, count: counts.get(outcome) ?? 0 })),
        pending: Math.max(0, spansMatched - runs),
        queued: owed._count._all,
        oldestQueuedSeconds: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0,
        waiting: waits.length,
        waitingSince: waits[0]?.since ?? null,
        nextWaitExpiresAt: waits.length ? new Date(Math.min(...waits.map((w) => w.expiresAt.getTime()))) : null,
        lastMatchedAt: stats._max.lastMatchedAt ?? null,
        lastSeenAt: stats._max.lastSeenAt ?? null,
        lastRunAt: last._max.finishedAt ?? null,
      };
    },
  };
}

/** The runs service. */
export type RunService = ReturnType<typeof createRunService>;
