import { Prisma, type Backfill } from "../../generated/prisma/client.js";
import { BadUserInputError, ConflictError, LimitExceededError, NotFoundError, type InputIssue } from "../../lib/errors.js";
import { isInfrastructureError } from "../../lib/infra-errors.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { parseIssues } from "../../lib/validation.js";
import { watchSnapshots } from "../experiments/watch.js";
import type { Queues } from "../../queues/queues.js";
import { ruleOf, type EvaluatorRule } from "../spans/matching.js";
import { specsOf } from "../templates/store.js";
import { asJson, objectOf } from "../../lib/json-column.js";
import { isUuid } from "../../lib/uuid.js";
import type { Tx } from "../../lib/prisma.js";
import { resolveParams, valueProblems } from "../templates/values.js";
import type { Principal } from "../../lib/principal.js";
import {
  ACTIVE_BACKFILL_STATUSES,
  backfillIdInputSchema,
  backfillInputSchema,
  DEFAULT_BACKFILL_BATCH_SIZE,
  DEFAULT_MAX_SPANS,
  listBackfillsInputSchema,
  MAX_ACTIVE_BACKFILLS,
  MAX_BACKFILL_EVALUATORS,
  MAX_WINDOW_MS,
  WINDOW_END_SKEW_MS,
  type ParsedBackfillInput,
} from "./schemas.js";
import { backfillOutcomeCounts, backfillProgress, backfillScoreSummaries, type BackfillOutcomeCount, type BackfillProgress, type BackfillScoreSummary } from "./summary.js";
import { ruleMatches, selectGroups, selectSpans, type SelectedGroup, type SelectedSpan } from "./selection.js";
import { kindTraits } from "../evaluators/kinds.js";
import { settingsOf } from "../evaluators/group-settings.js";
import type { GroupEvaluatorRule } from "../spans/group-touches.js";
import type { GroupTargetType, TargetType } from "../../lib/closed-lists.js";

export type { Backfill } from "../../generated/prisma/client.js";
export type { BackfillOutcomeCount, BackfillProgress, BackfillScoreSummary } from "./summary.js";

/** An evaluator a backfill runs, resolved from the input (the one asked for, then its dependencies). */
interface Member {
  evaluatorId: string;
  name: string;
  templateVersionId: string;
  templateVersion: number;
  params: Record<string, unknown>;
  source: "evaluator" | "dependency";
  /** The evaluators of the backfill whose code reads this one's scores (empty for the one asked for). */
  readBy: string[];
  rule: EvaluatorRule;
  /** What it runs on; a trace or session evaluator's rule carries its target and group settings. */
  target: TargetType;
  groupRule?: GroupEvaluatorRule;
}

/** What a backfill would do, per evaluator. */
export interface BackfillEstimateEvaluator {
  evaluatorId: string;
  name: string;
  source: "evaluator" | "dependency";
  templateVersion: number;
  readBy: string[];
  /** Chosen spans this evaluator's rule matches (all of them for the evaluator asked for); for a trace or session evaluator, the chosen groups. */
  spansMatched: number;
  /** Of those, spans (or groups) it already has a current run on. */
  alreadyEvaluated: number;
  /** Runs it would record: spansMatched, less alreadyEvaluated unless rerun. */
  toRun: number;
}

/** The estimate of a backfill: the spans (or groups) it would read and the runs it would record. */
export interface BackfillEstimate {
  windowStart: Date;
  windowEnd: Date;
  /** What the evaluator asked for runs on: span, trace or session. */
  target: TargetType;
  /** Spans chosen; for a trace or session evaluator, the groups chosen (one run each). */
  spans: number;
  /** Traces or sessions chosen (a trace or session evaluator); null for a span evaluator. */
  groups: number | null;
  /** Runs it would record, every evaluator together. */
  runs: number;
  /** Runs that would replace an earlier run (rerun), kept in RunHistory. */
  reruns: number;
  evaluators: BackfillEstimateEvaluator[];
}

/** A created backfill and the dependencies it added (as Oodle's `alsoRuns`). */
export interface CreatedBackfill {
  backfill: Backfill;
  estimate: BackfillEstimate;
}

/** The backfill job id of one batch (no `:` for BullMQ). */
export function backfillJobId(backfillId: string, batch: number): string {
  return `${backfillId}_${batch}`;
}

/**
 * Backfills: an evaluator run again over stored spans chosen by its live rule, a time window, a
 * span filter, a sample rate and a maximum count, as queued batch jobs (batch.ts). Reads and
 * rules are here, each `(principal, input: unknown)` parsed with the module's zod schemas and
 * returning rows with raw ids; every read and write is scoped to the caller's workspace.
 */
export function createBackfillService(deps: { prisma: PrismaClient; queues: Queues; logger: Logger }) {
  const { prisma, queues, logger } = deps;

  function parse(input: unknown): ParsedBackfillInput & { windowEnd: Date } {
    const { data, issues } = parseIssues(backfillInputSchema, input);
    if (!data) throw new BadUserInputError(issues);
    const windowEnd = data.windowEnd ?? new Date();
    const problems: InputIssue[] = [];
    if (windowEnd.getTime() > Date.now() + WINDOW_END_SKEW_MS) problems.push({ path: "windowEnd", message: "is in the future: a backfill reads spans that already arrived" });
    if (data.windowStart.getTime() >= windowEnd.getTime()) problems.push({ path: "windowStart", message: "must be before windowEnd" });
    else if (windowEnd.getTime() - data.windowStart.getTime() > MAX_WINDOW_MS) problems.push({ path: "windowStart", message: "the window must be at most 90 days" });
    if (problems.length) throw new BadUserInputError(problems);
    return { ...data, windowEnd };
  }

  /** The version and ctx.params an evaluator runs with; issues when its values do not fit that version. */
  async function member(db: PrismaClient | Tx, workspaceId: string, id: string, version: number | undefined, path: string, issues: InputIssue[]): Promise<Omit<Member, "source" | "readBy"> | null> {
    const evaluator = isUuid(id) ? await db.evaluator.findFirst({ where: { id, workspaceId }, include: { template: true } }) : null;
    if (!evaluator) throw new NotFoundError("evaluator", id);
    if (evaluator.archivedAt) {
      issues.push({ path, message: `evaluator "${evaluator.name}" is archived` });
      return null;
    }
    if (evaluator.templateId === null || evaluator.template === null) {
      issues.push({ path, message: `evaluator "${evaluator.name}" is external: its scores are posted through the API, so it cannot be backfilled` });
      return null;
    }
    const number = version ?? evaluator.pinnedVersion ?? evaluator.template.latestVersion;
    const found = await db.templateVersion.findUnique({ where: { templateId_version: { templateId: evaluator.templateId, version: number } } });
    if (!found) {
      issues.push({ path: "templateVersion", message: `template "${evaluator.template.name}" has no version ${number} (latest ${evaluator.template.latestVersion})` });
      return null;
    }
    const values = objectOf(evaluator.params);
    for (const p of valueProblems(specsOf(found), values)) issues.push({ path, message: `evaluator "${evaluator.name}" on version ${number}: ${p.message}` });
    const rule = ruleOf(evaluator);
    const target = evaluator.target as TargetType;
    // A trace or session evaluator runs once per group (docs/evaluation.md § Targets), matched as live ingest matches it.
    const groupRule = target === "span" ? undefined : { ...rule, target: target as GroupTargetType, settings: settingsOf(target as GroupTargetType, evaluator.groupSettings) };
    return { evaluatorId: evaluator.id, name: evaluator.name, templateVersionId: found.id, templateVersion: number, params: resolveParams(specsOf(found), values), rule, target, ...(groupRule ? { groupRule } : {}) };
  }

  /** The evaluator asked for and, with includeDependencies, its code dependencies, transitively. */
  async function members(db: PrismaClient | Tx, workspaceId: string, data: ParsedBackfillInput): Promise<Member[]> {
    const issues: InputIssue[] = [];
    const scoreOf = data.filter?.scoreEvaluatorId;
    if (scoreOf !== undefined && !(isUuid(scoreOf) && (await db.evaluator.count({ where: { id: scoreOf, workspaceId } })) > 0)) {
      throw new BadUserInputError([{ path: "filter.scoreEvaluatorId", message: `no evaluator "${scoreOf}" in this workspace` }]);
    }
    const first = await member(db, workspaceId, data.evaluatorId, data.templateVersion, "evaluatorId", issues);
    if (!first) throw new BadUserInputError(issues);
    const list: Member[] = [{ ...first, source: "evaluator", readBy: [] }];
    if (first.groupRule) {
      // A group evaluator reads the current scores of the span evaluators it depends on, as live; running them here is not supported.
      const target = first.groupRule.target;
      if (data.includeDependencies) issues.push({ path: "includeDependencies", message: `evaluator "${first.name}" is a ${target} evaluator: a backfill of a trace or session evaluator runs it alone, reading its span dependencies' current scores (run a backfill of each dependency first)` });
      if (data.filter?.outcomes?.length) issues.push({ path: "filter.outcomes", message: `evaluator "${first.name}" is a ${target} evaluator: its runs are on ${target}s, not spans, so no span has an outcome of it (leave outcomes out)` });
      if (data.filter?.scoreName !== undefined && (data.filter.scoreEvaluatorId === undefined || data.filter.scoreEvaluatorId === first.evaluatorId)) {
        issues.push({ path: "filter.scoreName", message: `evaluator "${first.name}" is a ${target} evaluator: its scores are on ${target}s, not spans (name a span evaluator with scoreEvaluatorId)` });
      }
      if (issues.length) throw new BadUserInputError(issues);
      return list;
    }
    // Spans chosen by the evaluator's own runs already have a run: without rerun every one would be skipped.
    if (!data.rerun && data.filter?.outcomes?.length) issues.push({ path: "filter.outcomes", message: "selects spans the evaluator already ran on: set rerun: true to run them again" });
    const ownScore = data.filter?.scoreName !== undefined && (data.filter.scoreEvaluatorId === undefined || data.filter.scoreEvaluatorId === data.evaluatorId);
    if (!data.rerun && ownScore) issues.push({ path: "filter.scoreName", message: "selects spans by the evaluator's own score, so it already ran on them: set rerun: true to run them again" });
    if (data.includeDependencies) {
      const byId = new Map(list.map((m) => [m.evaluatorId, m]));
      let frontier = [first.evaluatorId];
      while (frontier.length) {
        const edges = await db.evaluatorDependency.findMany({
          where: { evaluatorId: { in: frontier } },
          include: { dependsOn: { select: { id: true, kind: true } }, evaluator: { select: { name: true } } },
          orderBy: [{ evaluatorId: "asc" }, { position: "asc" }],
        });
        frontier = [];
        for (const edge of edges) {
          if (kindTraits(edge.dependsOn.kind).canBePosted) continue; // its scores are posted: read as they are
          const known = byId.get(edge.dependsOnId);
          if (known) {
            if (!known.readBy.includes(edge.evaluator.name)) known.readBy.push(edge.evaluator.name);
            continue;
          }
          const found = await member(db, workspaceId, edge.dependsOnId, undefined, "includeDependencies", issues);
          if (!found) continue;
          if (found.groupRule) {
            // Refused when the dependency is declared (dependencies/store.ts); an older edge is not run per span here.
            issues.push({ path: "includeDependencies", message: `evaluator "${found.name}" is a ${found.target} evaluator: a span evaluator's dependencies run per span, so it cannot be one` });
            continue;
          }
          const added: Member = { ...found, source: "dependency", readBy: [edge.evaluator.name] };
          byId.set(added.evaluatorId, added);
          list.push(added);
          frontier.push(added.evaluatorId);
        }
      }
      if (list.length > MAX_BACKFILL_EVALUATORS) issues.push({ path: "includeDependencies", message: `at most ${MAX_BACKFILL_EVALUATORS} evaluators in one backfill (with its dependencies: ${list.length})` });
    }
    if (issues.length) throw new BadUserInputError(issues);
    return list;
  }

  /** The estimate of a group evaluator's backfill over chosen groups (it runs alone). */
  async function groupEstimateOf(data: ParsedBackfillInput & { windowEnd: Date }, m: Member, groups: SelectedGroup[]): Promise<BackfillEstimate> {
    const keys = groups.map((g) => g.key);
    const column = m.target === "trace" ? Prisma.sql`"traceId"` : Prisma.sql`"sessionId"`;
    const [row] = keys.length ? await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "Run" WHERE "evaluatorId" = ${m.evaluatorId}::uuid AND ${column} = ANY(${keys}::text[])` : [{ n: 0n }];
    const alreadyEvaluated = Number(row?.n ?? 0);
    const toRun = data.rerun ? keys.length : keys.length - alreadyEvaluated;
    return {
      windowStart: data.windowStart,
      windowEnd: data.windowEnd,
      target: m.target,
      spans: keys.length,
      groups: keys.length,
      runs: toRun,
      reruns: data.rerun ? alreadyEvaluated : 0,
      evaluators: [{ evaluatorId: m.evaluatorId, name: m.name, source: m.source, templateVersion: m.templateVersion, readBy: m.readBy, spansMatched: keys.length, alreadyEvaluated, toRun }],
    };
  }

  /** The estimate of a parsed input over chosen spans. */
  async function estimateOf(data: ParsedBackfillInput & { windowEnd: Date }, list: Member[], spans: SelectedSpan[]): Promise<BackfillEstimate> {
    const evaluators: BackfillEstimateEvaluator[] = [];
    for (const m of list) {
      const matched = m.source === "evaluator" ? spans : spans.filter((s) => ruleMatches(m.rule, s));
      // One array parameter (up to 100,000 ids; a Prisma `in` list would pass Postgres' bind-parameter limit).
      const [row] = matched.length
        ? await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "Run" WHERE "evaluatorId" = ${m.evaluatorId}::uuid AND "spanId" = ANY(${matched.map((s) => s.id)}::uuid[])`
        : [{ n: 0n }];
      const alreadyEvaluated = Number(row?.n ?? 0);
      evaluators.push({
        evaluatorId: m.evaluatorId,
        name: m.name,
        source: m.source,
        templateVersion: m.templateVersion,
        readBy: m.readBy,
        spansMatched: matched.length,
        alreadyEvaluated,
        toRun: data.rerun ? matched.length : matched.length - alreadyEvaluated,
      });
    }
    return {
      windowStart: data.windowStart,
      windowEnd: data.windowEnd,
      target: "span",
      spans: spans.length,
      groups: null,
      runs: evaluators.reduce((n, e) => n + e.toRun, 0),
      reruns: data.rerun ? evaluators.reduce((n, e) => n + e.alreadyEvaluated, 0) : 0,
      evaluators,
    };
  }

  /**
   * Chooses what a parsed input reads: spans, or for a trace or session evaluator its groups (each
   * with its first selected span), and the estimate.
   */
  async function choose(workspaceId: string, data: ParsedBackfillInput & { windowEnd: Date }, list: Member[]): Promise<{ rows: { spanId: string; groupKey: string | null }[]; estimate: BackfillEstimate }> {
    const main = list[0]!;
    const selection = {
      workspaceId,
      rule: main.rule,
      windowStart: data.windowStart,
      windowEnd: data.windowEnd,
      filter: data.filter ?? {},
      sampleRate: data.sampleRate ?? 1,
      maxSpans: data.maxSpans ?? DEFAULT_MAX_SPANS,
    };
    if (main.groupRule) {
      const groups = await selectGroups(prisma, { ...selection, rule: main.groupRule });
      return { rows: groups.map((g) => ({ spanId: g.span.id, groupKey: g.key })), estimate: await groupEstimateOf(data, main, groups) };
    }
    const spans = await selectSpans(prisma, selection);
    return { rows: spans.map((s) => ({ spanId: s.id, groupKey: null })), estimate: await estimateOf(data, list, spans) };
  }

  /** A backfill of the workspace. @throws NotFoundError. */
  async function findBackfill(workspaceId: string, id: string): Promise<Backfill> {
    const backfill = isUuid(id) ? await prisma.backfill.findFirst({ where: { id, workspaceId } }) : null;
    if (!backfill) throw new NotFoundError("backfill", id);
    return backfill;
  }

  return {
    /**
     * What a backfill with this input would do, without creating it: the spans it would read (for
     * a trace or session evaluator: the groups, `groups`) and, per evaluator, the spans matched, already evaluated and the runs it would record (`runs`
     * is what a backfill created now records, while the spans and runs stay as they are).
     * @throws BadUserInputError (naming the field), NotFoundError.
     */
    async estimateBackfill(principal: Principal, input: unknown): Promise<BackfillEstimate> {
      const data = parse(input);
      const list = await members(prisma, principal.workspaceId, data);
      return (await choose(principal.workspaceId, data, list)).estimate;
    },

    /**
     * Creates a backfill: chooses its spans now (fixed: BackfillSpan; for a trace or session
     * evaluator one row per group, its first selected span and the group key), fixes every evaluator's
     * template version and ctx.params, and queues one `backfill-batch` job per batch (ids only).
     * A backfill with no spans is completed at once. When Redis does not answer, the backfill is
     * still created and its batches are queued by the worker's resumer once Redis is back.
     * @throws BadUserInputError, NotFoundError, LimitExceededError past {@link MAX_ACTIVE_BACKFILLS}
     *   queued or running backfills in the workspace.
     */
    async createBackfill(principal: Principal, input: unknown): Promise<CreatedBackfill> {
      const data = parse(input);
      const workspaceId = principal.workspaceId;
      const list = await members(prisma, workspaceId, data);
      const { rows: spans, estimate } = await choose(workspaceId, data, list);
      const batchSize = data.batchSize ?? DEFAULT_BACKFILL_BATCH_SIZE;
      const backfill = await prisma.$transaction(
        async (tx) => {
          // One creation at a time per workspace, so two cannot both pass the limit.
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`backfills:${workspaceId}`}, 0))`;
          const active = await tx.backfill.count({ where: { workspaceId, status: { in: [...ACTIVE_BACKFILL_STATUSES] } } });
          if (active >= MAX_ACTIVE_BACKFILLS) throw new LimitExceededError(`at most ${MAX_ACTIVE_BACKFILLS} backfills queued or running per workspace (${active} now): wait for one to finish or cancel one`);
          const created = await tx.backfill.create({
            data: {
              workspaceId,
              name: data.name ?? (await defaultName(tx, workspaceId, list[0]!.name, data)),
              windowStart: data.windowStart,
              windowEnd: data.windowEnd,
              spanFilter: asJson(data.filter ?? {}),
              sampleRate: data.sampleRate ?? 1,
              maxSpans: data.maxSpans ?? DEFAULT_MAX_SPANS,
              rerun: data.rerun ?? false,
              includeDependencies: data.includeDependencies ?? false,
              spanCount: spans.length,
              batchSize,
              ...(spans.length === 0 ? { status: "completed", startedAt: new Date(), finishedAt: new Date() } : {}),
              evaluators: { create: list.map((m, position) => ({ evaluatorId: m.evaluatorId, templateVersionId: m.templateVersionId, params: asJson(m.params), source: m.source, position })) },
            },
          });
          if (spans.length) {
            // A trace or session backfill keeps one BackfillSpan per group (its first selected span, and the key read now, so a
            // later change of the evaluator's session keys does not move it): batches, progress, the resumer and cancel then
            // work on positions as for spans, and the group is read whole from the stored spans when its batch runs.
            await tx.$executeRaw`
              INSERT INTO "BackfillSpan" ("backfillId", position, "spanId", "groupKey")
              SELECT ${created.id}::uuid, (t.ord - 1)::int, t.id, NULLIF(t.key, '') FROM unnest(${spans.map((s) => s.spanId)}::uuid[], ${spans.map((s) => s.groupKey ?? "")}::text[]) WITH ORDINALITY AS t(id, key, ord)`;
          }
          return created;
        },
        { maxWait: 10_000, timeout: 60_000 },
      );
      const batches = Math.ceil(spans.length / batchSize);
      try {
        await queues.addBulk(
          "backfill-batch",
          Array.from({ length: batches }, (_, batch) => ({ payload: { backfillId: backfill.id, batch }, jobId: backfillJobId(backfill.id, batch) })),
        );
      } catch (error) {
        // Committed above: the worker's resumer (resume.ts) queues the batches once Redis is back.
        if (!isInfrastructureError(error)) throw error;
        logger.warn({ backfillId: backfill.id, err: error instanceof Error ? error.message : String(error) }, "backfill batches not queued now; the resumer will queue them");
      }
      logger.info({ backfillId: backfill.id, spans: spans.length, batches, runs: estimate.runs }, "backfill queued");
      return { backfill, estimate };
    },

    /** A backfill of the workspace by id. @throws NotFoundError. */
    async getBackfill(principal: Principal, input: unknown): Promise<Backfill> {
      const { data, issues } = parseIssues(backfillIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      return findBackfill(principal.workspaceId, data.id);
    },

    /**
     * The workspace's backfills, newest first, by status and evaluator (the one asked for).
     * `page` is the caller's pagination and selection (a Prisma findMany fragment).
     */
    async listBackfills(principal: Principal, input: unknown, page: Omit<Prisma.BackfillFindManyArgs, "where" | "orderBy"> = {}): Promise<Backfill[]> {
      const { data, issues } = parseIssues(listBackfillsInputSchema, input ?? {});
      if (!data) throw new BadUserInputError(issues);
      const where: Prisma.BackfillWhereInput = { workspaceId: principal.workspaceId };
      if (data.status) where.status = data.status;
      if (data.evaluatorId) where.evaluators = { some: { evaluatorId: isUuid(data.evaluatorId) ? data.evaluatorId : "00000000-0000-0000-0000-000000000000", source: "evaluator" } };
      return prisma.backfill.findMany({ ...page, where, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }) as Promise<Backfill[]>;
    },

    /** Queued or running backfills of the workspace, and the limit. */
    async activeBackfills(principal: Principal): Promise<{ active: number; maxConcurrent: number }> {
      const active = await prisma.backfill.count({ where: { workspaceId: principal.workspaceId, status: { in: [...ACTIVE_BACKFILL_STATUSES] } } });
      return { active, maxConcurrent: MAX_ACTIVE_BACKFILLS };
    },

    /**
     * Cancels a queued or running backfill: batches not started do nothing, a running batch stops
     * before its next evaluator, and a write in flight either committed before the cancel or is
     * discarded (record.ts), so no run is added once this returns. Runs recorded stay.
     * Cancelling a cancelled backfill returns it as it is.
     * @throws NotFoundError; ConflictError for a completed or failed backfill.
     */
    async cancelBackfill(principal: Principal, input: unknown): Promise<Backfill> {
      const { data, issues } = parseIssues(backfillIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const found = await findBackfill(principal.workspaceId, data.id);
      const now = new Date();
      await prisma.backfill.updateMany({ where: { id: found.id, status: { in: [...ACTIVE_BACKFILL_STATUSES] } }, data: { status: "cancelled", cancelledAt: now, finishedAt: now } });
      const after = await prisma.backfill.findUniqueOrThrow({ where: { id: found.id } });
      if (after.status !== "cancelled") {
        throw new ConflictError(`backfill "${after.name}" is ${after.status}: only a queued or running backfill can be cancelled`, [
          { recordType: "Backfill", id: after.id, backfill: after.name, status: after.status },
        ]);
      }
      logger.info({ backfillId: after.id }, "backfill cancelled");
      return after;
    },

    /** Marks a backfill failed (a batch failed for good), with the reason; only while queued or running. */
    async markFailed(backfillId: string, error: unknown): Promise<void> {
      if (isInfrastructureError(error)) return; // retried by the worker, not the backfill's fault
      const message = error instanceof Error ? error.message : String(error);
      await prisma.backfill.updateMany({ where: { id: backfillId, status: { in: [...ACTIVE_BACKFILL_STATUSES] } }, data: { status: "failed", error: message.slice(0, 2000), finishedAt: new Date() } });
    },

    /**
     * The status and progress of a backfill of the workspace whenever they change (polled every
     * `intervalMs`, default 500 ms); ends after a final status (completed, cancelled, failed).
     * @throws NotFoundError (before the first snapshot).
     */
    async watchBackfill(principal: Principal, input: unknown, intervalMs = 500): Promise<AsyncGenerator<BackfillSnapshot>> {
      const { data, issues } = parseIssues(backfillIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const found = await findBackfill(principal.workspaceId, data.id);
      return watchSnapshots(
        async () => {
          const row = await prisma.backfill.findUniqueOrThrow({ where: { id: found.id } });
          return { backfillId: row.id, status: row.status, progress: await backfillProgress(prisma, row) };
        },
        intervalMs,
        FINAL_BACKFILL_STATUSES,
      ) as AsyncGenerator<BackfillSnapshot>;
    },

    progress: (backfill: Pick<Backfill, "id" | "spanCount" | "batchSize">): Promise<BackfillProgress> => backfillProgress(prisma, backfill),
    summary: (backfill: Pick<Backfill, "id">): Promise<BackfillScoreSummary[]> => backfillScoreSummaries(prisma, backfill.id),
    runsByOutcome: (backfill: Pick<Backfill, "id">): Promise<BackfillOutcomeCount[]> => backfillOutcomeCounts(prisma, backfill.id),
  };
}

/** What the progress subscription sends: the backfill's status and progress (raw id). */
export interface BackfillSnapshot {
  backfillId: string;
  status: string;
  progress: BackfillProgress;
}

/** Statuses after which a backfill changes no more. */
const FINAL_BACKFILL_STATUSES: ReadonlySet<string> = new Set(["completed", "cancelled", "failed"]);

/**
 * The name of a backfill created without one: the evaluator's name and the window to the second
 * (UTC), e.g. `Long reply 2026-11-20 00:00:00 – 2026-11-27 09:14:05`; when the workspace already
 * has a backfill of that name (same evaluator and window), ` (2)`, ` (3)`, … is added. Read under
 * the workspace's creation lock, so two creations never pick the same name.
 */
async function defaultName(tx: Tx, workspaceId: string, evaluatorName: string, window: { windowStart: Date; windowEnd: Date }): Promise<string> {
  const at = (d: Date) => d.toISOString().slice(0, 19).replace("T", " ");
  const base = `${evaluatorName} ${at(window.windowStart)} – ${at(window.windowEnd)}`;
  const taken = new Set((await tx.backfill.findMany({ where: { workspaceId, name: { startsWith: base } }, select: { name: true } })).map((b) => b.name));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base} (${n})`)) return `${base} (${n})`;
}

/** The backfills service. */
export type BackfillService = ReturnType<typeof createBackfillService>;
