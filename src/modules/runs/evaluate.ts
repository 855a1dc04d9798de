import { BadUserInputError, NotFoundError } from "../../lib/errors.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Queues } from "../../queues/queues.js";
import { addSpanJobs, planSpanJobs, type SpanJobs } from "./flows.js";
import { toDependencyMap, workspaceEdges } from "../dependencies/store.js";
import { kindTraits } from "../evaluators/kinds.js";

/** Most spans one {@link LiveEvaluations.evaluateSpans} call takes (call again for more). */
export const MAX_SPANS_PER_CALL = 10_000;

/** What {@link LiveEvaluations.evaluateSpans} queued. */
export interface QueuedEvaluations {
  /** (span, evaluator) pairs queued on the live path (owed rows written, jobs added). */
  queued: number;
  /** Pairs left out because they already have a run (the unique Run per span and evaluator). */
  alreadyRun: number;
  /** Span ids that are not spans of the workspace (ignored). */
  unknownSpans: number;
}

/**
 * Queues evaluations of stored spans on the live path, for callers other than ingest (backfills):
 * the same durable OwedEvaluation rows (so the reconciler and the backlog bound see them), the
 * same `evaluate-target` jobs, batches, barriers and exactly-once as live spans.
 */
export function createLiveEvaluations(deps: { prisma: PrismaClient; queues: Queues }) {
  const { prisma, queues } = deps;
  return {
    /**
     * Queues `evaluatorIds` (code evaluators of the workspace) on `spanIds` (spans of the
     * workspace). Evaluators of one call that depend on each other run in dependency order on
     * each span (barriers, as at ingest); a dependency outside the call is read as it stands.
     * Pairs that already have a run are skipped: to run them again, the caller first moves the
     * earlier run to its history and deletes it, then passes a `tag` (new job ids: the earlier
     * job may still be kept in Redis under the plain id). Sampling and rules are the caller's
     * (a backfill selects spans by the evaluator's rule itself).
     * @throws NotFoundError for an evaluator not in the workspace; BadUserInputError for an
     *   external evaluator, an empty list, more than {@link MAX_SPANS_PER_CALL} spans or a bad tag.
     */
    async evaluateSpans(workspaceId: string, args: { evaluatorIds: readonly string[]; spanIds: readonly string[]; tag?: string }): Promise<QueuedEvaluations> {
      const evaluatorIds = [...new Set(args.evaluatorIds)];
      const spanIds = [...new Set(args.spanIds)];
      if (evaluatorIds.length === 0) throw new BadUserInputError([{ path: "evaluatorIds", message: "must name at least one evaluator" }]);
      if (spanIds.length > MAX_SPANS_PER_CALL) throw new BadUserInputError([{ path: "spanIds", message: `at most ${MAX_SPANS_PER_CALL} spans per call (got ${spanIds.length})` }]);
      if (args.tag !== undefined && !/^[0-9a-f-]{1,40}$/.test(args.tag)) throw new BadUserInputError([{ path: "tag", message: "must be 1 to 40 characters of 0-9, a-f and -" }]);
      const evaluators = await prisma.evaluator.findMany({ where: { id: { in: evaluatorIds }, workspaceId }, select: { id: true, kind: true } });
      for (const id of evaluatorIds) if (!evaluators.some((e) => e.id === id)) throw new NotFoundError("evaluator", id);
      const external = evaluators.find((e) => !kindTraits(e.kind).computed);
      if (external) throw new BadUserInputError([{ path: "evaluatorIds", message: `evaluator ${external.id} is external: its scores are posted, not run` }]);
      const spans = await prisma.span.findMany({ where: { workspaceId, id: { in: spanIds } }, select: { id: true } });
      const known = new Set(spans.map((s) => s.id));
      const done = new Set(
        (await prisma.run.findMany({ where: { spanId: { in: [...known] }, evaluatorId: { in: evaluatorIds } }, select: { spanId: true, evaluatorId: true } })).map((r) => `${r.spanId}/${r.evaluatorId}`),
      );
      const pairs = [...known].flatMap((spanId) => evaluatorIds.filter((e) => !done.has(`${spanId}/${e}`)).map((evaluatorId) => ({ spanId, evaluatorId, workspaceId })));
      // Durable first (the reconciler queues them again if Redis loses the jobs), then queued.
      await prisma.owedEvaluation.createMany({ data: pairs.map((p) => ({ targetType: "span", targetId: p.spanId, evaluatorId: p.evaluatorId, workspaceId })), skipDuplicates: true });
      const dependsOn = toDependencyMap(await workspaceEdges(prisma, workspaceId));
      const kinds = new Map(evaluators.map((e) => [e.id, e.kind]));
      const bySpan = new Map<string, string[]>();
      for (const p of pairs) bySpan.set(p.spanId, [...(bySpan.get(p.spanId) ?? []), p.evaluatorId]);
      const jobs: SpanJobs = { plain: [], flows: [] };
      for (const [spanId, run] of bySpan) {
        const planned = planSpanJobs({ workspaceId, spanId, run, waitFor: new Set(run), dependsOn, kinds, ...(args.tag ? { tag: args.tag } : {}) });
        jobs.plain.push(...planned.plain);
        jobs.flows.push(...planned.flows);
      }
      await addSpanJobs(queues, jobs);
      return { queued: pairs.length, alreadyRun: known.size * evaluatorIds.length - pairs.length, unknownSpans: spanIds.length - known.size };
    },
  };
}

/** Live evaluations of stored spans. */
export type LiveEvaluations = ReturnType<typeof createLiveEvaluations>;
