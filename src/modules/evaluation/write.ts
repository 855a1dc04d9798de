import { randomUUID } from "node:crypto";
import type { ItemResult } from "../../execution/index.js";
import type { PrismaClient, Tx } from "../../lib/prisma.js";
import type { GroupCompletion } from "../../lib/closed-lists.js";
import { jsonWithoutNul, runColumns, SKIPPED_COLUMNS, type RunColumns } from "./record.js";
import type { RunUsage } from "./executors.js";

/**
 * The one writer of Run and Score rows, for every path (live spans, experiments, backfills,
 * posted scores of external evaluators): a record is mapped to its columns here and only here,
 * and runs with their scores are inserted by one set-based statement. A new Run column is a
 * change in this file, history.ts (the copy kept when a run is replaced) and the schema.
 */

/** What a live run is about: a span. */
export interface SpanTarget {
  spanId: string;
}

/** What an experiment run is about: an item of the experiment's dataset. */
export interface ItemTarget {
  experimentId: string;
  datasetItemId: string;
}

/** What a trace evaluator's run is about: a trace (its OTLP trace id). */
export interface TraceTarget {
  traceId: string;
}

/** What a session evaluator's run is about: a session (its key). */
export interface SessionTarget {
  sessionId: string;
}

/** Every target a run can be about. */
export type AnyTarget = SpanTarget | ItemTarget | TraceTarget | SessionTarget;

/** What a trace or session run records of its group (Run.completion, groupSpanCount, documentCapped). */
export interface GroupRunFacts {
  /** Why it ran when it did; null for a backfill's run (it ran because the backfill asked). */
  completion: GroupCompletion | null;
  /** Spans the group had when it ran (before caps). */
  spanCount: number;
  /** The document was cut to the evaluator's caps. */
  capped: boolean;
}

/** One run to record. */
export interface RunRecord<T extends AnyTarget = AnyTarget> {
  workspaceId: string;
  evaluatorId: string;
  /** The template version run (null when the run stopped before one was resolved). */
  templateVersionId: string | null;
  target: T;
  /** ctx.params as the run saw them. */
  params: Record<string, unknown>;
  /** Shared-library versions used: name → version. */
  libraryVersions: Record<string, number>;
  /** The sandbox's result; null for a run that did not run (`skipReason` says why) unless `columns` is given. */
  result: ItemResult | null;
  /** Columns already built (e.g. a recorded worker crash); otherwise taken from `result`. */
  columns?: RunColumns;
  /** Why the run was skipped (a gate, the evaluator disabled, the invocation cap); the outcome is then `skipped`. */
  skipReason?: string;
  /** Dependencies that had no scores when the run read them (ctx.score fell back to its default). */
  missingDependencies?: string[];
  /** Dependency evaluator id → the run id it read (live dependents; see Run.inputRunIds). */
  inputRunIds?: Record<string, string>;
  /** The backfill that made the run (span runs of a backfill only). */
  backfillId?: string;
  /** A trace or session run: why it ran when it did, its spans, whether its document was capped. */
  group?: GroupRunFacts;
  /** A judge run's model call (Run.usage); absent or null for code. */
  usage?: RunUsage | null;
  /** Attempts of the job so far (1 on the first). */
  attempts: number;
  startedAt: Date;
  finishedAt: Date;
}

/** The columns of a record (its result's, else skipped). */
export function columnsOf(record: Pick<RunRecord, "result" | "columns">): RunColumns {
  return record.columns ?? (record.result ? runColumns(record.result) : SKIPPED_COLUMNS);
}

/** The Run row of one record as JSON for `jsonb_to_recordset`, with its id chosen here (`runColumns` already replaced U+0000). */
function runRow(id: string, r: RunRecord, columns: RunColumns) {
  const t = r.target as Partial<SpanTarget & ItemTarget & TraceTarget & SessionTarget>;
  return {
    id,
    workspaceId: r.workspaceId,
    evaluatorId: r.evaluatorId,
    templateVersionId: r.templateVersionId,
    spanId: t.spanId ?? null,
    experimentId: t.experimentId ?? null,
    datasetItemId: t.datasetItemId ?? null,
    traceId: t.traceId ?? null,
    sessionId: t.sessionId ?? null,
    completion: r.group?.completion ?? null,
    groupSpanCount: r.group?.spanCount ?? null,
    documentCapped: r.group?.capped ?? false,
    backfillId: r.backfillId ?? null,
    libraryVersions: r.libraryVersions,
    params: jsonWithoutNul(r.params),
    outcome: columns.outcome,
    skipReason: r.skipReason ?? null,
    missingDependencies: r.missingDependencies ?? [],
    inputRunIds: r.inputRunIds ?? {},
    stdout: columns.stdout,
    stderr: columns.stderr,
    errorType: columns.errorType,
    errorMessage: columns.errorMessage,
    errorTraceback: columns.errorTraceback,
    durationMs: columns.durationMs,
    outputTruncated: columns.outputTruncated,
    attempts: r.attempts,
    usage: r.usage ?? null,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt.toISOString(),
  };
}

/** The Score rows of one run as JSON (the primary score first); a null value is SQL NULL (no value). */
function scoreRows(runId: string, r: RunRecord, columns: RunColumns) {
  const t = r.target as Partial<SpanTarget & ItemTarget>;
  return columns.scores.map((score) => ({
    runId,
    workspaceId: r.workspaceId,
    evaluatorId: r.evaluatorId,
    spanId: t.spanId ?? null,
    experimentId: t.experimentId ?? null,
    datasetItemId: t.datasetItemId ?? null,
    position: score.position,
    name: score.name,
    dataType: score.dataType,
    value: score.value,
    numericValue: score.numericValue,
    higherIsBetter: score.higherIsBetter,
    comment: score.comment,
    metadata: score.metadata,
  }));
}

/** The unique index that makes a run exactly once, per kind of target. */
const CONFLICT_TARGET = {
  span: `("spanId", "evaluatorId")`,
  item: `("experimentId", "datasetItemId", "evaluatorId")`,
  trace: `("evaluatorId", "traceId")`,
  session: `("evaluatorId", "sessionId")`,
} as const;

/**
 * Inserts the runs, skipping any pair that already has one (the unique index of the target), and
 * the scores of the runs actually inserted — one statement, so runs and scores commit together.
 * A live run also settles its OwedEvaluation row in the same statement (so the owed rows are the
 * backlog). Rows travel as two jsonb arrays (an ORM multi-row insert is an order of magnitude slower).
 */
function insertStatement(kind: keyof typeof CONFLICT_TARGET): string {
  const settle = kind === "span"
    ? `, settled AS (DELETE FROM "OwedEvaluation" o USING inserted i WHERE o."targetType" = 'span' AND o."targetId" = i."spanId" AND o."evaluatorId" = i."evaluatorId")`
    : "";
  return `
WITH inserted AS (
  INSERT INTO "Run" (id, "workspaceId", "evaluatorId", "templateVersionId", "spanId", "experimentId", "datasetItemId", "traceId", "sessionId", completion, "groupSpanCount", "documentCapped", "backfillId", "libraryVersions", params,
                     outcome, "skipReason", "missingDependencies", "inputRunIds", stdout, stderr, "errorType", "errorMessage", "errorTraceback", "durationMs", "outputTruncated", attempts, usage, "startedAt", "finishedAt")
  SELECT r.id, r."workspaceId", r."evaluatorId", r."templateVersionId", r."spanId", r."experimentId", r."datasetItemId", r."traceId", r."sessionId", r.completion, r."groupSpanCount", coalesce(r."documentCapped", false), r."backfillId", r."libraryVersions", r.params,
         r.outcome, r."skipReason", coalesce(r."missingDependencies", ARRAY[]::text[]), coalesce(r."inputRunIds", '{}'::jsonb), r.stdout, r.stderr, r."errorType", r."errorMessage", r."errorTraceback", r."durationMs", coalesce(r."outputTruncated", false), r.attempts, r.usage, r."startedAt", r."finishedAt"
  FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, "workspaceId" uuid, "evaluatorId" uuid, "templateVersionId" uuid, "spanId" uuid, "experimentId" uuid,
       "datasetItemId" uuid, "traceId" text, "sessionId" text, completion text, "groupSpanCount" int, "documentCapped" boolean, "backfillId" uuid, "libraryVersions" jsonb, params jsonb, outcome text, "skipReason" text, "missingDependencies" text[], "inputRunIds" jsonb, stdout text, stderr text, "errorType" text,
       "errorMessage" text, "errorTraceback" text, "durationMs" float8, "outputTruncated" boolean, attempts int, usage jsonb, "startedAt" timestamp(3), "finishedAt" timestamp(3))
  ON CONFLICT ${CONFLICT_TARGET[kind]} DO NOTHING
  RETURNING id, "spanId", "evaluatorId"
), scores AS (
  INSERT INTO "Score" (id, "runId", "workspaceId", "evaluatorId", "spanId", "experimentId", "datasetItemId", position, name, "dataType", value,
                       "numericValue", "higherIsBetter", comment, metadata)
  SELECT gen_random_uuid(), s."runId", s."workspaceId", s."evaluatorId", s."spanId", s."experimentId", s."datasetItemId", s.position, s.name, s."dataType",
         s.value, s."numericValue", s."higherIsBetter", s.comment, s.metadata
  FROM jsonb_to_recordset($2::jsonb) AS s("runId" uuid, "workspaceId" uuid, "evaluatorId" uuid, "spanId" uuid, "experimentId" uuid, "datasetItemId" uuid,
       position int, name text, "dataType" text, value jsonb, "numericValue" float8, "higherIsBetter" boolean, comment text, metadata jsonb)
  WHERE s."runId" IN (SELECT id FROM inserted)
)${settle}
SELECT id FROM inserted`;
}

const STATEMENTS = { span: insertStatement("span"), item: insertStatement("item"), trace: insertStatement("trace"), session: insertStatement("session") } as const;

/** The kind of a record's target (its unique index). */
function kindOf(target: AnyTarget): keyof typeof CONFLICT_TARGET {
  if ("spanId" in target) return "span";
  if ("datasetItemId" in target) return "item";
  return "traceId" in target ? "trace" : "session";
}

/**
 * Writes runs and their scores in ONE statement (so in one transaction). Exactly once per pair:
 * the unique index decides, so a run that another attempt or worker already recorded is left as
 * it is and this call's copy (and its scores) is dropped. Every record must have the same kind
 * of target (all spans, all items, all traces or all sessions).
 * @returns the records actually inserted, with their run ids and the columns written (in input order).
 * @throws the database error (nothing is written then).
 */
export async function insertRuns<T extends AnyTarget>(db: PrismaClient | Tx, records: readonly RunRecord<T>[]): Promise<InsertedRun<T>[]> {
  if (records.length === 0) return [];
  const kind = kindOf(records[0]!.target);
  const runs: ReturnType<typeof runRow>[] = [];
  const scores: ReturnType<typeof scoreRows> = [];
  const planned: InsertedRun<T>[] = [];
  for (const record of records) {
    const runId = randomUUID();
    const columns = columnsOf(record);
    planned.push({ record, runId, columns });
    runs.push(runRow(runId, record, columns));
    scores.push(...scoreRows(runId, record, columns));
  }
  const inserted = await db.$queryRawUnsafe<{ id: string }[]>(STATEMENTS[kind], JSON.stringify(runs), JSON.stringify(scores));
  const done = new Set(inserted.map((r) => r.id));
  return planned.filter((p) => done.has(p.runId));
}

/** A record that {@link insertRuns} inserted: its run id, and the columns written (the scores a dependent reads next). */
export interface InsertedRun<T extends AnyTarget = AnyTarget> {
  record: RunRecord<T>;
  runId: string;
  columns: RunColumns;
}

/**
 * Takes the locks of the current trace or session runs of `evaluatorId` on `keys` (trace ids or
 * session keys) for the rest of the transaction, in one sorted order: every writer of group runs
 * (the live group processor, a backfill) takes them before it reads the current runs, so two never
 * replace the same run at once (the later one reads the other's run, and supersedes it). An
 * advisory lock, since the run to lock may not exist yet.
 */
export async function lockGroupRuns(tx: Tx, evaluatorId: string, targetType: "trace" | "session", keys: readonly string[]): Promise<void> {
  const locks = [...new Set(keys)].sort().map((k) => `group-run:${evaluatorId}:${targetType}:${k}`);
  if (locks.length === 0) return;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(${locks}::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n`;
}

