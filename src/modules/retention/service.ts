import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import { startPeriodic } from "../../lib/periodic.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Principal } from "../../lib/principal.js";
import { effectiveRetention, parseRetentionInput, retentionCutoff, type EffectiveRetention, type RetentionInput, type RetentionSettings } from "./policy.js";
import { deleteGroupBatch, deleteHistoryBatch, deleteSpanBatch, type BatchCounts } from "./sweep.js";

/** Per-workspace request limits of the deployment (per minute; null: none). */
export interface RateLimitFigures {
  ingestPerMinute: number | null;
  tryCodePerMinute: number | null;
  mutationsPerMinute: number | null;
  readsPerMinute: number | null;
}

/** A workspace's limits: its retention in force and the deployment's per-workspace bounds. */
export interface WorkspaceLimits {
  retention: EffectiveRetention & {
    /** The deployment's default (RETENTION_DEFAULT_DAYS); null: forever. */
    defaultDays: number | null;
    /** The deployment's ceiling (RETENTION_MAX_DAYS); null: none. */
    maxDays: number | null;
    /** Spans created before this instant age out at the next sweep; null: nothing ages out. */
    cutoff: Date | null;
  };
  rateLimits: RateLimitFigures;
  /** Live evaluations queued and not yet run past which ingest is refused; null: no bound. */
  maxQueuedEvaluations: number | null;
}

/** What one sweep did: rows deleted, batches (transactions), time, and whether it stopped at its budget with more to do. */
export interface SweepReport {
  /** Workspaces with a retention (not kept forever) that were looked at. */
  workspaces: number;
  batches: number;
  deleted: BatchCounts;
  /** Wall time of the pass, ms. */
  ms: number;
  /** True when the pass stopped at `maxBatches` with rows left to delete (the next pass goes on). */
  more: boolean;
  /** Expired judge answers deleted from the result cache (at most 10,000 a pass; judges/cache.ts). */
  judgeCacheEntries: number;
}

/** Options of the retention service. */
export interface RetentionDeps {
  prisma: PrismaClient;
  logger: Logger;
  clock: Clock;
  settings: RetentionSettings;
  /** Spans per delete transaction (RETENTION_BATCH_SIZE). */
  batchSize: number;
  rateLimits: RateLimitFigures;
  maxQueuedEvaluations: number | null;
  /** Deletes one bounded batch of expired cache rows (the judges' result cache: judges/cache.ts purgeExpired); @returns how many. */
  purgeExpiredCache?: (now: Date) => Promise<number>;
}

const zero = (): BatchCounts => ({ spans: 0, runs: 0, scores: 0, history: 0 });

/**
 * Per-workspace retention of spans (with their live runs and scores) and run history: the
 * setting, the limits it is read with, and the sweep that enforces it in short batched
 * transactions (src/modules/retention/sweep.ts), run by the worker every RETENTION_INTERVAL_MS.
 * Experiments, datasets and their runs are not aged out: they are kept until deleted.
 */
export function createRetentionService(deps: RetentionDeps) {
  const { prisma, logger, clock, settings, batchSize } = deps;

  async function limitsOf(workspaceId: string): Promise<WorkspaceLimits> {
    const stored = await prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { retentionDays: true, retentionForever: true } });
    const effective = effectiveRetention(stored, settings);
    return {
      retention: { ...effective, defaultDays: settings.defaultDays, maxDays: settings.maxDays, cutoff: effective.days === null ? null : retentionCutoff(clock.now(), effective.days) },
      rateLimits: deps.rateLimits,
      maxQueuedEvaluations: deps.maxQueuedEvaluations,
    };
  }

  return {
    /** The caller's workspace limits: retention in force (and where it comes from), rate limits, backlog bound. */
    limits: (principal: Principal): Promise<WorkspaceLimits> => limitsOf(principal.workspaceId),

    /**
     * Sets the caller's workspace retention: days, forever, or back to the default.
     * @throws BadUserInputError naming the field (see parseRetentionInput).
     * @returns the limits after the change.
     */
    async setRetention(principal: Principal, input: RetentionInput): Promise<WorkspaceLimits> {
      const stored = parseRetentionInput(input, settings);
      await prisma.workspace.update({ where: { id: principal.workspaceId }, data: stored });
      logger.info({ workspaceId: principal.workspaceId, ...stored }, "workspace retention set");
      return limitsOf(principal.workspaceId);
    },

    /**
     * One pass: for each workspace whose retention is not forever, deletes spans created before
     * its cutoff (now by the injected clock minus its days) with their runs, scores and history,
     * `batchSize` spans per transaction, then history superseded before the cutoff; at most
     * `maxBatches` transactions in all (default 200), so a pass is bounded and the next one goes on.
     */
    async sweep(options: { maxBatches?: number; workspaceId?: string } = {}): Promise<SweepReport> {
      const started = performance.now();
      const budget = options.maxBatches ?? 200;
      const workspaces = await prisma.workspace.findMany({
        where: options.workspaceId ? { id: options.workspaceId } : {},
        select: { id: true, retentionDays: true, retentionForever: true },
        orderBy: { id: "asc" },
      });
      const deleted = zero();
      let batches = 0;
      let looked = 0;
      let more = false;
      for (const ws of workspaces) {
        const { days } = effectiveRetention(ws, settings);
        if (days === null) continue;
        looked += 1;
        const cutoff = retentionCutoff(clock.now(), days);
        for (;;) {
          if (batches >= budget) {
            more = true;
            break;
          }
          const counts = await deleteSpanBatch(prisma, ws.id, cutoff, batchSize);
          batches += 1;
          for (const k of Object.keys(deleted) as (keyof BatchCounts)[]) deleted[k] += counts[k];
          if (counts.spans < batchSize) break;
        }
        for (;;) {
          if (batches >= budget) {
            more = true;
            break;
          }
          // Trace and session runs: no span's, so not taken away with the spans above.
          const groups = await deleteGroupBatch(prisma, ws.id, cutoff, batchSize);
          batches += 1;
          deleted.runs += groups.runs;
          deleted.history += groups.history;
          if (groups.runs < batchSize) break;
        }
        for (;;) {
          if (batches >= budget) {
            more = true;
            break;
          }
          const history = await deleteHistoryBatch(prisma, ws.id, cutoff, batchSize);
          batches += 1;
          deleted.history += history;
          if (history < batchSize) break;
        }
        if (more) break;
      }
      // Expired judge answers are never read again: one bounded batch a pass (every workspace's).
      const judgeCacheEntries = options.workspaceId || !deps.purgeExpiredCache ? 0 : await deps.purgeExpiredCache(clock.now());
      const ms = performance.now() - started;
      const report = { workspaces: looked, batches, deleted, ms, more, judgeCacheEntries };
      if (deleted.spans + deleted.history + judgeCacheEntries > 0) {
        logger.info({ ...report, spansPerSecond: Math.round((deleted.spans / ms) * 1000) }, "retention sweep deleted aged-out data");
      }
      return report;
    },

    /** Runs {@link sweep} every `intervalMs` (one pass at a time; errors logged). @returns a function that stops it. */
    start(intervalMs: number): () => Promise<void> {
      return startPeriodic({ pass: () => this.sweep(), intervalMs, logger, failure: "retention sweep failed; next pass later" });
    },
  };
}

/** The retention service. */
export type RetentionService = ReturnType<typeof createRetentionService>;
