import { randomUUID } from "node:crypto";
import type { Evaluator, Run, Span } from "../../generated/prisma/client.js";
import { BadUserInputError, LimitExceededError, NotFoundError, RateLimitedError, type InputIssue } from "../../lib/errors.js";
import { isConflictError, isInfrastructureError } from "../../lib/infra-errors.js";
import { largestField, unstorableValues } from "../../lib/json-safety.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { EvaluationEnqueuer, EvaluationPair } from "./enqueuer.js";
import { describeWait, dependencyWaits, type DependencyWait } from "./waiting.js";
import { isUuid } from "../../lib/uuid.js";
import type { Principal } from "../../lib/principal.js";
import { spanBatchJobId } from "../../queues/registry.js";
import { toolCallsOf, turnsOf } from "./conversation.js";
import { droppedCountsOf, incompleteNote } from "./incomplete.js";
import { oversizeMessage } from "./size.js";
import { spanToDocument, type SampleDocument } from "./document.js";
import { conversationInput, conversationOutput } from "./genai.js";
import { listSpans, type SpanPageRequest } from "./list.js";

export { spanCursor } from "./list.js";
import { matchSpan, resourceAttributesOf, RULE_SELECT, type MatchDecision } from "./matching.js";

export type { ConditionResult } from "./matching.js";
export type { DroppedCounts } from "./incomplete.js";
export type { DependencyWait, WaitedDependency } from "./waiting.js";
import { MAX_BATCH_BYTES, MAX_SPAN_BYTES, MAX_SPANS_PER_BATCH, normaliseSpan, type NormalisedSpan } from "./schemas.js";
import { spanKey, writeIngestBatch, type IngestRow } from "./ingest-write.js";
import { kindTraits } from "../evaluators/kinds.js";
import { settingsOf } from "../evaluators/group-settings.js";
import { blockedSkipReason } from "../evaluators/blocking.js";
import { systemClock, type Clock } from "../../lib/clock.js";
import type { GroupTargetType } from "../../lib/closed-lists.js";
import { groupTouchesOf, matchGroupSpan, type GroupEvaluatorRule } from "./group-touches.js";

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

/** Appends to the list of `key` in `map`. */
function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The evaluations of one evaluator on the spans of an ingest batch, queued as one job. */
export interface SpanBatch {
  evaluatorId: string;
  spanIds: string[];
  /** `spanBatchJobId(evaluatorId, keys of the spans)`, also written on the batch's owed evaluations. */
  jobId: string;
}

/**
 * The code evaluators whose live evaluations can be queued in batches: those with no dependency
 * and that no evaluator of the list depends on (a dependency's order on a span is a flow per span).
 */
function batchableEvaluators(evaluators: readonly { id: string; kind: string; dependencies: { dependsOnId: string }[] }[]): Set<string> {
  const dependedOn = new Set(evaluators.flatMap((e) => e.dependencies.map((d) => d.dependsOnId)));
  return new Set(evaluators.filter((e) => kindTraits(e.kind).computed && e.dependencies.length === 0 && !dependedOn.has(e.id)).map((e) => e.id));
}

/** Why an evaluator did or did not run on a span (the explainMatch query). */
export interface MatchExplanation {
  decision: MatchDecision;
  /** The evaluator's rule changed after the span was ingested: the decision then may have differed. */
  ruleChangedSinceIngest: boolean;
  archived: boolean;
  /** Set when the evaluator is queued on the span and waits for dependencies (then `decision.detail` says for what, since when, until when). */
  waiting: DependencyWait | null;
  /** The evaluator's current run on the span, when it has one: a matched span can still be `skipped` (a gate, the invocation cap, disabled after matching). */
  run: Run | null;
  /** Set when the span's sender dropped attributes, events or links (spans/incomplete.ts): the document is incomplete. */
  incomplete: string | null;
  /** Set when the evaluator is blocked (evaluators/blocking.ts): the skip reason its runs get meanwhile, with since when and why. */
  blocked: string | null;
}

/** A decision's detail with the evaluator's block said: a matched span's run is skipped while it is blocked. */
function withBlock(decision: MatchDecision, blocked: string | null): MatchDecision {
  if (!blocked) return decision;
  return { ...decision, detail: `${decision.detail}; ${blocked}${decision.matched ? " (a run here is skipped until then)" : ""}` };
}

const RULE_FIELDS = { ...RULE_SELECT, kind: true } as const;

/** A span's attributes as an object (the column is never null once stored, but JSON in Prisma's types). */
function attributesOf(span: Pick<Span, "attributes">): Record<string, unknown> {
  return (span.attributes ?? {}) as Record<string, unknown>;
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
  /**
   * Queues the batch jobs of evaluators outside every dependency (runs/span-batch.ts): one job per
   * ingest batch and such evaluator. Absent: every pair goes through `enqueue`.
   */
  queueBatches?: (workspaceId: string, batches: readonly SpanBatch[]) => Promise<void>;
  /** Per-workspace bound on queued evaluations (0 or absent: none); see {@link ingestSpans}. */
  maxQueuedEvaluations?: number;
  /**
   * A trace or session evaluator's evaluation of a group in words, with its current run
   * (groups/service.ts, passed by the composition root: groups sit above spans); absent: explainMatch
   * says only whether the span's rule takes the group.
   */
  describeGroup?: (workspaceId: string, evaluatorId: string, targetType: GroupTargetType, group: { groupKey: string } | { traceId: string }) => Promise<{ groupKey: string; detail: string; run: Run | null } | null>;
  /** The arrival time of spans for trace and session groups (what quiet periods and maximum waits count from); default the system's. */
  clock?: Clock;
}) {
  const { prisma, logger } = deps;
  const limit = deps.maxQueuedEvaluations ? deps.maxQueuedEvaluations : null;

  /**
   * Runs an ingest statement, again (up to 3 times, after 20–80 ms) when Postgres aborted it as a
   * deadlock or serialization failure: the statement is atomic, so nothing of it was kept, and the
   * client should not see a conflict between two writers of the same group schedules.
   */
  async function writeOnce<T>(write: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (attempt >= 2 || !isConflictError(error)) throw error;
        logger.debug({ attempt, err: error instanceof Error ? error.message : String(error) }, "ingest statement hit a lock conflict; writing it again");
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 60));
      }
    }
  }

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

  /**
   * Accepts a batch of spans: validates each (a bad one is reported by index and does not block
   * the others), stores them idempotently (unique per workspace by trace and span id), applies
   * every live evaluator's rule to each and queues one evaluation per match. Returns once the
   * spans are stored and the evaluations queued; nothing is evaluated on the request path.
   * A span sent again is matched again and queued for the evaluators that have no run on it (one
   * created since, say); an evaluation is not queued twice (deterministic job ids) nor run twice
   * (unique run per span and evaluator). Skips are counted for new spans only; a match of a re-sent
   * span is counted when it is owed for the first time (spans/ingest-write.ts), so `spansMatched`
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
    const unstorable = spans.map((s) => unstorableValues(s));
    const sizes = spans.map((s, i) => (unstorable[i]!.length ? 0 : Buffer.byteLength(JSON.stringify(s) ?? "", "utf8")));
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > MAX_BATCH_BYTES) throw new LimitExceededError(`at most ${MAX_BATCH_BYTES} bytes of spans per batch (got ${total}): split the batch`);
    // The workspace's evaluators are read beside the backlog check, before the transaction (the
    // rules as they are at ingest), with their dependencies, which the enqueuer then needs not read.
    const [evaluators] = await Promise.all([
      prisma.evaluator.findMany({
        where: { workspaceId: principal.workspaceId, archivedAt: null },
        select: { ...RULE_FIELDS, target: true, groupSettings: true, dependencies: { select: { dependsOnId: true }, orderBy: { position: "asc" } } },
        orderBy: { createdAt: "asc" },
      }),
      checkBacklog(principal.workspaceId),
    ]);
    const now = new Date();
    const arrivedAt = (deps.clock ?? systemClock).now();
    const accepted: { index: number; span: NormalisedSpan }[] = [];
    const rejected: IngestResult["rejected"] = [];
    spans.forEach((raw, index) => {
      if (unstorable[index]!.length) {
        rejected.push({ index, issues: unstorable[index]! });
        return;
      }
      if (sizes[index]! > MAX_SPAN_BYTES) {
        // Named at the field that makes it large (`input`, `attributes.prompt`), with the limit and its largest values.
        rejected.push({ index, issues: [{ path: largestField(raw)?.path ?? "", message: oversizeMessage(raw, sizes[index]!) }] });
        return;
      }
      const result = normaliseSpan(raw, now);
      if ("span" in result) accepted.push({ index, span: result.span });
      else rejected.push({ index, issues: result.issues });
    });
    // The distinct spans (the first of a trace and span id sent twice), each with the id it gets if
    // new, every rule's decision and the runs it owes; the batch evaluators' job ids from the keys.
    // Trace and session evaluators take groups (group-touches.ts): their spans owe no span run.
    const groupRules: GroupEvaluatorRule[] = evaluators.flatMap((e) => (e.target === "span" ? [] : [{ ...e, target: e.target as GroupTargetType, settings: settingsOf(e.target as GroupTargetType, e.groupSettings) }]));
    const spanEvaluators = groupRules.length ? evaluators.filter((e) => e.target === "span") : evaluators;
    const batchable = deps.queueBatches ? batchableEvaluators(spanEvaluators) : new Set<string>();
    const firstByKey = new Map<string, { index: number; span: NormalisedSpan }>();
    for (const a of accepted) if (!firstByKey.has(spanKey(a.span.traceId, a.span.spanId))) firstByKey.set(spanKey(a.span.traceId, a.span.spanId), a);
    const matchedBy = new Map<string, string[]>(); // batchable evaluator → keys of its matched spans
    const rows: IngestRow[] = [...firstByKey.values()].map(({ span }) => {
      const id = randomUUID();
      const decisions = spanEvaluators.map((e) => ({ evaluatorId: e.id, ...matchSpan(e, span) }));
      for (const d of decisions) if (d.matched && batchable.has(d.evaluatorId)) pushTo(matchedBy, d.evaluatorId, spanKey(span.traceId, span.spanId));
      if (!groupRules.length) return { id, span, decisions, owes: [], groups: [] };
      const group = groupTouchesOf(id, span, groupRules);
      return { id, span, decisions: [...decisions, ...group.decisions.map((d) => ({ evaluatorId: d.evaluatorId, ...d.decision }))], owes: [], groups: group.touches };
    });
    const groupEvaluatorIds = new Set(groupRules.map((r) => r.id));
    const jobIds = new Map([...matchedBy].map(([evaluatorId, keys]) => [evaluatorId, spanBatchJobId(evaluatorId, keys)]));
    const kinds = new Map(evaluators.map((e) => [e.id, e.kind]));
    for (const row of rows) row.owes = row.decisions.filter((d) => d.matched && !groupEvaluatorIds.has(d.evaluatorId) && kindTraits(kinds.get(d.evaluatorId) ?? "").computed).map((d) => ({ evaluatorId: d.evaluatorId, jobId: jobIds.get(d.evaluatorId) ?? null }));
    // ONE statement writes the spans, the evaluations they owe and their match counts, together or
    // not at all (ingest-write.ts), so a success answer means nothing can be lost (the reconciler
    // re-queues owed evaluations whose jobs Redis lost) and a failure means nothing was kept. A span
    // a concurrent ingest stored meanwhile is written again, as sent again.
    let written = rows.length ? await writeOnce(() => writeIngestBatch(prisma, principal.workspaceId, rows, now, arrivedAt)) : null;
    const ids = new Map(written?.ids);
    let queued = (written?.owedNew ?? 0) + (written?.owedAgain ?? 0);
    const backlogBefore = written?.backlogBefore;
    for (let retry = 0; retry < 3 && written && ids.size < rows.length; retry++) {
      written = await writeOnce(() => writeIngestBatch(prisma, principal.workspaceId, rows.filter((r) => !ids.has(spanKey(r.span.traceId, r.span.spanId))), now, arrivedAt));
      for (const [key, value] of written.ids) ids.set(key, value);
      queued += written.owedNew + written.owedAgain;
    }
    if (ids.size < rows.length) throw new Error("ingest: spans neither created nor found after 3 writes");
    const stored: IngestedSpan[] = accepted.map(({ index, span }) => {
      const key = spanKey(span.traceId, span.spanId);
      const row = ids.get(key)!;
      return { index, id: row.id, traceId: span.traceId, spanId: span.spanId, created: row.created && firstByKey.get(key)!.index === index };
    });
    // Queue the matches: one job per batch for the batch evaluators, the pairs of the others.
    const pairs: EvaluationPair[] = [];
    const batchSpans = new Map<string, string[]>();
    for (const row of rows) {
      const id = ids.get(spanKey(row.span.traceId, row.span.spanId))!.id;
      for (const d of row.decisions) {
        if (!d.matched || groupEvaluatorIds.has(d.evaluatorId)) continue;
        if (batchable.has(d.evaluatorId)) pushTo(batchSpans, d.evaluatorId, id);
        else pairs.push({ targetType: "span", targetId: id, evaluatorId: d.evaluatorId });
      }
    }
    const batches: SpanBatch[] = [...batchSpans].map(([evaluatorId, spanIds]) => ({ evaluatorId, spanIds, jobId: jobIds.get(evaluatorId)! }));
    try {
      await Promise.all([
        deps.enqueue(principal.workspaceId, pairs, new Map(evaluators.map((e) => [e.id, { id: e.id, kind: e.kind, dependsOn: e.dependencies.map((d) => d.dependsOnId) }]))),
        batches.length ? deps.queueBatches!(principal.workspaceId, batches) : undefined,
      ]);
    } catch (error) {
      // Committed above: the reconciler queues them once Redis is back. The client is told success,
      // which is true (its spans and their owed evaluations are stored), never "stored but failed".
      const level = isInfrastructureError(error) ? "warn" : "error";
      logger[level]({ workspaceId: principal.workspaceId, pairs: pairs.length, batches: batches.length, err: error instanceof Error ? error.message : String(error) }, "evaluations not queued now; the reconciler will queue them");
    }
    logger.debug({ workspaceId: principal.workspaceId, spans: stored.length, rejected: rejected.length, queued: pairs.length }, "spans ingested");
    // The backlog the statement read before its own rows, plus them (no second query).
    const backlog = backlogBefore
      ? {
          queued: backlogBefore.queued + queued,
          // The oldest queued before this batch, else this batch's own (queued at `now`), else none: 0.
          oldestAgeSeconds: backlogBefore.oldest ? Math.max(0, (Date.now() - backlogBefore.oldest.getTime()) / 1000) : queued > 0 ? Math.max(0, (Date.now() - now.getTime()) / 1000) : 0,
          limit,
        }
      : await backlogOf(principal.workspaceId);
    return { spans: stored, rejected, evaluationsQueued: queued, backlog };
  }

  /**
   * explainMatch of a trace or session evaluator: whether this span's rule takes its group (the
   * rule's conditions, sampled per group), and the group's evaluation in words with its current run.
   */
  async function explainGroupMatch(workspaceId: string, evaluator: Evaluator, span: Span): Promise<MatchExplanation> {
    const target = evaluator.target as GroupTargetType;
    const rule: GroupEvaluatorRule = { ...evaluator, target, settings: settingsOf(target, evaluator.groupSettings) };
    const { decision, key } = matchGroupSpan(rule, span, { explain: true });
    const group = await deps.describeGroup?.(workspaceId, evaluator.id, target, key === null ? { traceId: span.traceId } : { groupKey: key });
    const taken = group
      ? `the ${target} ${JSON.stringify(group.groupKey)} is taken${key === null ? " (this span counts for it through its trace)" : ""}: ${group.detail}`
      : key === null
        ? `the span names no session (${rule.settings.sessionKeyAttributes.join(", ")}) and no session holds its trace`
        : `no span of the ${target} ${JSON.stringify(key)} was taken by the rule yet`;
    const blocked = blockedSkipReason(evaluator);
    return {
      decision: withBlock({ ...decision, detail: `${decision.matched ? "this span matches" : `this span does not match (${decision.detail})`}; ${taken}` }, blocked),
      ruleChangedSinceIngest: evaluator.updatedAt > span.createdAt,
      archived: evaluator.archivedAt !== null,
      waiting: null,
      run: group?.run ?? null,
      incomplete: incompleteNote(span.metadata),
      blocked,
    };
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

    /** A span's resource attributes (`metadata.otel.resource.attributes`; `{}` when none). */
    resourceAttributesOf: (span: Pick<Span, "metadata">) => resourceAttributesOf(span.metadata),
    /** What a span's sender dropped before export (zeros when nothing). */
    droppedCountsOf: (span: Pick<Span, "metadata">) => droppedCountsOf(span.metadata),
    /** Why a span's document is incomplete (its sender dropped attributes, events or links), or null. */
    incompleteOf: (span: Pick<Span, "metadata">) => incompleteNote(span.metadata),

    /** The dependents waiting for dependencies on a span of the workspace (see waiting.ts). */
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
     * condition, whether the rule changed since the span arrived, when it is queued there but
     * waits for dependencies, what for, since when and until when, and its run there if any. @throws NotFoundError for either id.
     */
    async explainMatch(workspaceId: string, spanId: string, evaluatorId: string): Promise<MatchExplanation> {
      const span = await findSpan(workspaceId, spanId);
      if (!span) throw new NotFoundError("span", spanId);
      const evaluator = isUuid(evaluatorId) ? await prisma.evaluator.findFirst({ where: { id: evaluatorId, workspaceId } }) : null;
      if (!evaluator) throw new NotFoundError("evaluator", evaluatorId);
      if (evaluator.target !== "span") return explainGroupMatch(workspaceId, evaluator, span);
      const decision = matchSpan(evaluator, span, { explain: true });
      const [[waiting], run] = await Promise.all([
        decision.matched ? dependencyWaits(prisma, workspaceId, { spanId, evaluatorId }) : Promise.resolve([]),
        prisma.run.findUnique({ where: { spanId_evaluatorId: { spanId, evaluatorId } } }),
      ]);
      const blocked = blockedSkipReason(evaluator);
      return {
        decision: withBlock(waiting ? { ...decision, detail: describeWait(waiting) } : decision, blocked),
        ruleChangedSinceIngest: evaluator.updatedAt > span.createdAt,
        archived: evaluator.archivedAt !== null,
        waiting: waiting ?? null,
        run,
        incomplete: incompleteNote(span.metadata),
        blocked,
      };
    },
  };
}

/** The spans service. */
export type SpanService = ReturnType<typeof createSpanService>;
