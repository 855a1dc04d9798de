import { Prisma, type Span } from "../../generated/prisma/client.js";
import { BadUserInputError, LimitExceededError, NotFoundError, RateLimitedError, type InputIssue } from "../../lib/errors.js";
import { isInfrastructureError } from "../../lib/infra-errors.js";
import { unstorableValues } from "../../lib/json-safety.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { EvaluationEnqueuer, EvaluationPair } from "../runs/enqueue.js";
import { describeWait, dependencyWaits, type DependencyWait } from "../dependencies/waiting.js";
import { isUuid } from "../../lib/uuid.js";
import type { Principal } from "../../lib/principal.js";
import { toolCallsOf, turnsOf } from "./conversation.js";
import { spanToDocument, type SampleDocument } from "./document.js";
import { conversationInput, conversationOutput } from "./genai.js";
import { listSpans, type SpanPageRequest } from "./list.js";

export { spanCursor } from "./list.js";
import { matchSpan, type MatchDecision } from "./matching.js";
import { MAX_BATCH_BYTES, MAX_SPAN_BYTES, MAX_SPANS_PER_BATCH, normaliseSpan, type NormalisedSpan } from "./schemas.js";
import { countDecision, emptyCounts, owedOnResend, recordOwedAndMatchStats, type MatchCounts } from "./stats.js";

/** Most spans of a trace put in `ctx.trace.spans` (the earliest by start time). */
export const MAX_TRACE_SPANS = 500;

/** The outcome of one accepted span of a batch. */
export interface IngestedSpan {
  /** Its index in the batch. */
  index: number;
  /** The stored span's id. */
  id: string;
  traceId: string;
  spanId: string;
  /** False when the workspace already had a span with this trace and span id (it is kept as it was). */
  created: boolean;
}

/** What ingestSpans returns at once (evaluation happens behind the queue). */
export interface IngestResult {
  spans: IngestedSpan[];
  /** Spans that were refused, each by index with every problem. */
  rejected: { index: number; issues: InputIssue[] }[];
  /** Evaluations queued: (span, evaluator) pairs whose rule matched and that were sampled. */
  evaluationsQueued: number;
  /** The workspace's evaluation backlog after this batch (see {@link EvaluationBacklog}). */
  backlog: EvaluationBacklog;
}

/** Live evaluations of a workspace owed and not yet run: the lag of live scoring. */
export interface EvaluationBacklog {
  /** Evaluations queued or running (OwedEvaluation rows; each is settled by its run). */
  queued: number;
  /** Seconds since the oldest of them was queued; 0 when none is. */
  oldestAgeSeconds: number;
  /** The bound at which ingest refuses (LIMIT_EXCEEDED with a retry-after); null: none. */
  limit: number | null;
}

/** Why an evaluator did or did not run on a span (the explainMatch query). */
export interface MatchExplanation {
  decision: MatchDecision;
  /** The evaluator's rule changed after the span was ingested: the decision then may have differed. */
  ruleChangedSinceIngest: boolean;
  archived: boolean;
  /** Set when the evaluator is queued on the span and waits for dependencies (then `decision.detail` says for what, since when, until when). */
  waiting: DependencyWait | null;
}

const RULE_FIELDS = { id: true, kind: true, enabled: true, spanKind: true, spanNamePattern: true, attributeEquals: true, samplingRate: true } as const;

function jsonColumn(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** A span's attributes as an object (the column is never null once stored, but JSON in Prisma's types). */
function attributesOf(span: Pick<Span, "attributes">): Record<string, unknown> {
  return (span.attributes ?? {}) as Record<string, unknown>;
}

function pairKey(traceId: string, spanId: string): string {
  return `${traceId}\u0000${spanId}`;
}

/**
 * Spans: ingest (validate, store idempotently, match evaluators, queue evaluations), the sample
 * document of a stored span, and why an evaluator did or did not run on one. Every read and
 * write is scoped to the caller's workspace.
 */
export function createSpanService(deps: {
  prisma: PrismaClient;
  logger: Logger;
  enqueue: EvaluationEnqueuer;
  /** Per-workspace bound on queued evaluations (0 or absent: none); see {@link ingestSpans}. */
  maxQueuedEvaluations?: number;
}) {
  const { prisma, logger } = deps;
  const limit = deps.maxQueuedEvaluations ? deps.maxQueuedEvaluations : null;

  /** The workspace's evaluation backlog now. */
  async function backlogOf(workspaceId: string): Promise<EvaluationBacklog> {
    const [row] = await prisma.$queryRaw<{ queued: number; oldest: Date | null }[]>`
      SELECT count(*)::int AS queued, min("createdAt") AS oldest FROM "OwedEvaluation" WHERE "workspaceId" = ${workspaceId}::uuid`;
    const oldest = row?.oldest ? Math.max(0, (Date.now() - row.oldest.getTime()) / 1000) : 0;
    return { queued: row?.queued ?? 0, oldestAgeSeconds: oldest, limit };
  }

  /**
   * Refuses a batch while the workspace's backlog is at its bound, before anything is stored (so
   * no span is half-accepted: the client keeps it and sends it again). The retry-after is the
   * time the workers need to run the excess at the rate they ran the workspace's evaluations in
   * the last 10 s (1 to 60 s).
   * @throws RateLimitedError (LIMIT_EXCEEDED, HTTP 429, retryAfterSeconds).
   */
  async function checkBacklog(workspaceId: string): Promise<void> {
    if (limit === null) return;
    const backlog = await backlogOf(workspaceId);
    if (backlog.queued < limit) return;
    const [row] = await prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "Run" WHERE "workspaceId" = ${workspaceId}::uuid AND "spanId" IS NOT NULL AND "createdAt" > now() - interval '10 seconds'`;
    const perSecond = (row?.n ?? 0) / 10;
    const retryAfter = perSecond > 0 ? Math.min(60, Math.max(1, (backlog.queued - limit + 1) / perSecond)) : 60;
    throw new RateLimitedError(
      `evaluation backlog full: ${backlog.queued} live evaluations of this workspace are queued (bound ${limit}, oldest ${Math.round(backlog.oldestAgeSeconds)} s); ` +
        `no span of this batch was stored; send it again in ${Math.ceil(retryAfter)} s`,
      retryAfter,
    );
  }

  /** Stores the valid spans (existing ones kept as they are) and returns their ids in batch order. */
  async function store(db: Prisma.TransactionClient, workspaceId: string, accepted: { index: number; span: NormalisedSpan }[]): Promise<IngestedSpan[]> {
    const firstByKey = new Map<string, { index: number; span: NormalisedSpan }>();
    for (const a of accepted) if (!firstByKey.has(pairKey(a.span.traceId, a.span.spanId))) firstByKey.set(pairKey(a.span.traceId, a.span.spanId), a);
    const unique = [...firstByKey.values()];
    const created = unique.length
      ? await db.span.createManyAndReturn({
          data: unique.map(({ span }) => ({
            workspaceId,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId,
            name: span.name,
            kind: span.kind,
            startTime: span.startTime,
            endTime: span.endTime,
            input: jsonColumn(span.input),
            output: jsonColumn(span.output),
            attributes: span.attributes as Prisma.InputJsonValue,
            metadata: span.metadata as Prisma.InputJsonValue,
            status: span.status,
          })),
          skipDuplicates: true,
          select: { id: true, traceId: true, spanId: true },
        })
      : [];
    const ids = new Map(created.map((row) => [pairKey(row.traceId, row.spanId), { id: row.id, created: true }]));
    const missing = unique.filter(({ span }) => !ids.has(pairKey(span.traceId, span.spanId)));
    if (missing.length) {
      const existing = await db.span.findMany({
        where: { workspaceId, OR: missing.map(({ span }) => ({ traceId: span.traceId, spanId: span.spanId })) },
        select: { id: true, traceId: true, spanId: true },
      });
      for (const row of existing) ids.set(pairKey(row.traceId, row.spanId), { id: row.id, created: false });
    }
    const firstIndex = new Map(unique.map((a) => [pairKey(a.span.traceId, a.span.spanId), a.index]));
    return accepted.map(({ index, span }) => {
      const key = pairKey(span.traceId, span.spanId);
      const row = ids.get(key)!;
      return { index, id: row.id, traceId: span.traceId, spanId: span.spanId, created: row.created && firstIndex.get(key) === index };
    });
  }

  /**
   * Accepts a batch of spans: validates each (a bad one is reported by index and does not block
   * the others), stores them idempotently (unique per workspace by trace and span id), applies
   * every live evaluator's rule to each and queues one evaluation per match. Returns once the
   * spans are stored and the evaluations queued; nothing is evaluated on the request path.
   * A span sent again is matched again and queued for the evaluators that have no run on it (one
   * created since, say); an evaluation is not queued twice (deterministic job ids) nor run twice
   * (unique run per span and evaluator). Skips are counted for new spans only; a match of a re-sent
   * span is counted when it is owed for the first time ({@link owedOnResend}), so `spansMatched`
   * counts each span an evaluator was queued on once.
   * Backpressure: while the workspace has its bound of queued evaluations (config
   * MAX_QUEUED_EVALUATIONS_PER_WORKSPACE) the whole batch is refused before anything is stored;
   * below it every valid span is stored with its owed evaluations, however far behind the
   * workers are (the response's `backlog` says how far). No span is ever stored unscored or lost.
   * @throws RateLimitedError (LIMIT_EXCEEDED, 429, retryAfterSeconds) when the backlog is at its bound.
   * @throws LimitExceededError for more than 1,000 spans or more than 8 MiB of JSON.
   * @throws BadUserInputError when `spans` is not a list.
   */
  async function ingestSpans(principal: Principal, spans: unknown): Promise<IngestResult> {
    if (!Array.isArray(spans)) throw new BadUserInputError([{ path: "spans", message: "must be a list of spans" }]);
    if (spans.length > MAX_SPANS_PER_BATCH) throw new LimitExceededError(`at most ${MAX_SPANS_PER_BATCH} spans per batch (got ${spans.length}): split the batch`);
    // Checked first, iteratively: a span nested 100,000 deep would overflow JSON.stringify's stack.
    const unstorable = spans.map((s) => unstorableValues(s, { nul: false }));
    const sizes = spans.map((s, i) => (unstorable[i]!.length ? 0 : Buffer.byteLength(JSON.stringify(s) ?? "", "utf8")));
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > MAX_BATCH_BYTES) throw new LimitExceededError(`at most ${MAX_BATCH_BYTES} bytes of spans per batch (got ${total}): split the batch`);
    // The workspace's evaluators are read beside the backlog check, before the transaction (the
    // rules as they are at ingest), with their dependencies, which the enqueuer then needs not read.
    const [evaluators] = await Promise.all([
      prisma.evaluator.findMany({
        where: { workspaceId: principal.workspaceId, archivedAt: null },
        select: { ...RULE_FIELDS, dependencies: { select: { dependsOnId: true }, orderBy: { position: "asc" } } },
        orderBy: { createdAt: "asc" },
      }),
      checkBacklog(principal.workspaceId),
    ]);
    const now = new Date();
    const accepted: { index: number; span: NormalisedSpan }[] = [];
    const rejected: IngestResult["rejected"] = [];
    spans.forEach((raw, index) => {
      if (unstorable[index]!.length) {
        rejected.push({ index, issues: unstorable[index]! });
        return;
      }
      if (sizes[index]! > MAX_SPAN_BYTES) {
        rejected.push({ index, issues: [{ path: "", message: `a span must be at most ${MAX_SPAN_BYTES} bytes of JSON (got ${sizes[index]})` }] });
        return;
      }
      const result = normaliseSpan(raw, now);
      if ("span" in result) accepted.push({ index, span: result.span });
      else rejected.push({ index, issues: result.issues });
    });
    // One transaction: the spans, their match counts and the evaluations they owe are committed
    // together or not at all, so a success answer means nothing can be lost (the reconciler
    // re-queues owed evaluations whose jobs Redis lost) and a failure means nothing was kept.
    const { stored, pairs, queued } = await prisma.$transaction(
      async (tx) => {
        const stored = await store(tx, principal.workspaceId, accepted);
        const pairs: EvaluationPair[] = [];
        const owed: { spanId: string; evaluatorId: string; workspaceId: string }[] = [];
        const resent: { spanId: string; evaluatorId: string }[] = [];
        const counts = new Map<string, MatchCounts>(evaluators.map((e) => [e.id, emptyCounts()]));
        const seen = new Set<string>();
        stored.forEach((row, i) => {
          if (seen.has(row.id)) return; // the same span twice in one batch
          seen.add(row.id);
          const span = accepted[i]!.span;
          for (const evaluator of evaluators) {
            const decision = matchSpan(evaluator, span);
            if (row.created) countDecision(counts.get(evaluator.id)!, decision);
            if (!decision.matched) continue;
            pairs.push({ spanId: row.id, evaluatorId: evaluator.id });
            // External evaluators owe nothing to the queue (their scores are posted).
            if (evaluator.kind === "code" && row.created) owed.push({ spanId: row.id, evaluatorId: evaluator.id, workspaceId: principal.workspaceId });
            else if (evaluator.kind === "code") resent.push({ spanId: row.id, evaluatorId: evaluator.id });
          }
        });
        const owedAgain = await owedOnResend(tx, principal.workspaceId, resent, counts);
        // Last: the stats rows are shared by every ingest of the workspace, so their row locks are held for the shortest time.
        const owedNew = await recordOwedAndMatchStats(tx, principal.workspaceId, owed, counts);
        return { stored, pairs, queued: owedNew + owedAgain };
      },
      { maxWait: 10_000, timeout: 60_000 },
    );
    try {
      await deps.enqueue(principal.workspaceId, pairs, new Map(evaluators.map((e) => [e.id, { id: e.id, kind: e.kind, dependsOn: e.dependencies.map((d) => d.dependsOnId) }])));
    } catch (error) {
      // Committed above: the reconciler queues them once Redis is back. The client is told success,
      // which is true (its spans and their owed evaluations are stored), never "stored but failed".
      const level = isInfrastructureError(error) ? "warn" : "error";
      logger[level]({ workspaceId: principal.workspaceId, pairs: pairs.length, err: error instanceof Error ? error.message : String(error) }, "evaluations not queued now; the reconciler will queue them");
    }
    logger.debug({ workspaceId: principal.workspaceId, spans: stored.length, rejected: rejected.length, queued: pairs.length }, "spans ingested");
    return { spans: stored, rejected, evaluationsQueued: queued, backlog: await backlogOf(principal.workspaceId) };
  }

  /** A span of the workspace by its id, or null. */
  async function findSpan(workspaceId: string, id: string): Promise<Span | null> {
    return isUuid(id) ? prisma.span.findFirst({ where: { id, workspaceId } }) : null;
  }

  /** The spans of a trace (at most {@link MAX_TRACE_SPANS}, earliest first). */
  async function traceSpans(workspaceId: string, traceId: string): Promise<Span[]> {
    return prisma.span.findMany({ where: { workspaceId, traceId }, orderBy: [{ startTime: "asc" }, { createdAt: "asc" }], take: MAX_TRACE_SPANS });
  }

  return {
    ingestSpans,
    backlogOf,
    findSpan,
    traceSpans,
    /** A page of the workspace's spans, filtered in SQL: see {@link listSpans}. */
    listSpans: (principal: Principal, filter: unknown, page: SpanPageRequest) => listSpans(prisma, principal, filter, page),

    /** The dependents waiting for dependencies on a span of the workspace (see dependencies/waiting.ts). */
    waiting: (workspaceId: string, spanId: string): Promise<DependencyWait[]> => dependencyWaits(prisma, workspaceId, { spanId }),

    /** The turns of a span's conversation as [{role, content}], oldest first: input messages then output (OpenAI shape, else gen_ai.*.messages). */
    conversationOf: (span: Pick<Span, "input" | "output" | "attributes">) => turnsOf(conversationInput({ input: span.input, attributes: attributesOf(span) }), conversationOutput({ output: span.output, attributes: attributesOf(span) })),

    /** The tool calls in a span's output as [{name, arguments}]. */
    toolCallsOf: (span: Pick<Span, "output" | "attributes">) => toolCallsOf(conversationOutput({ output: span.output, attributes: attributesOf(span) })),

    /** The sample document of a span row already read for the caller (with its trace). */
    documentOfSpan: async (span: Span): Promise<SampleDocument> => spanToDocument(span, await traceSpans(span.workspaceId, span.traceId)),

    /** The sample document of a stored span and its trace (what an evaluator sees). @throws NotFoundError. */
    async documentOf(workspaceId: string, spanId: string): Promise<SampleDocument> {
      const span = await findSpan(workspaceId, spanId);
      if (!span) throw new NotFoundError("span", spanId);
      return spanToDocument(span, await traceSpans(workspaceId, span.traceId));
    },

    /**
     * Why an evaluator did or did not run on a span: its rule applied to the span now, condition by
     * condition, whether the rule changed since the span arrived, and, when it is queued there but
     * waits for dependencies, what for, since when and until when. @throws NotFoundError for either id.
     */
    async explainMatch(workspaceId: string, spanId: string, evaluatorId: string): Promise<MatchExplanation> {
      const span = await findSpan(workspaceId, spanId);
      if (!span) throw new NotFoundError("span", spanId);
      const evaluator = isUuid(evaluatorId) ? await prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId } }) : null;
      if (!evaluator) throw new NotFoundError("evaluator", evaluatorId);
      const decision = matchSpan(evaluator, span);
      const [waiting] = decision.matched ? await dependencyWaits(prisma, workspaceId, { spanId, evaluatorId }) : [];
      return {
        decision: waiting ? { ...decision, detail: describeWait(waiting) } : decision,
        ruleChangedSinceIngest: evaluator.updatedAt > span.createdAt,
        archived: evaluator.archivedAt !== null,
        waiting: waiting ?? null,
      };
    },
  };
}

/** The spans service. */
export type SpanService = ReturnType<typeof createSpanService>;
