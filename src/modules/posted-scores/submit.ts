import type { Run } from "../../generated/prisma/client.js";
import { BadUserInputError, NotFoundError, type InputIssue } from "../../lib/errors.js";
import { parseIssues } from "../../lib/validation.js";
import { moveRunsToHistory } from "../evaluation/history.js";
import { scoreColumns, SKIPPED_COLUMNS, type RunColumns } from "../evaluation/record.js";
import { insertRuns, type ItemTarget, type RunRecord, type SpanTarget } from "../evaluation/write.js";
import type { PrismaClient, Tx } from "../../lib/prisma.js";
import { isUuid } from "../../lib/uuid.js";
import type { Principal } from "../../lib/principal.js";
import { lockSpan } from "../dependencies/input-runs.js";
import { rerunAfterPost, type ReleaseDeps } from "../runs/release.js";
import { inferDataType, postedScoresSchema, type PostedScore } from "./schemas.js";
import { requireLookupName } from "../../lib/id-or-name.js";
import { kindTraits } from "../evaluators/kinds.js";

/** The input of submitScores. */
export interface SubmitScoresInput {
  /** The stored span (its id). */
  spanId: string;
  /** The external evaluator: its id or its name. */
  evaluator: string;
  /** The scores (docs/scores.md § Score): name, value, dataType?, higherIsBetter?, comment?, metadata?. */
  scores: unknown;
}

/** What submitScores did. */
export interface SubmitScoresResult {
  /** The run that holds the posted scores. */
  run: Run;
  /** True when earlier scores of this evaluator on this span were replaced. */
  replaced: boolean;
  /** Evaluators queued to run again because they had read the earlier scores. */
  rerun: string[];
}

/**
 * The run columns of posted scores: outcome ok, no output, no time in a sandbox, the scores as
 * given (data type inferred from the value when not given, higher is better unless said, U+0000
 * replaced as in a sandbox result's). Pure.
 */
export function postedColumns(scores: readonly PostedScore[]): RunColumns {
  const asResult = scores.map((s) => ({
    name: s.name,
    value: s.value,
    data_type: s.dataType ?? inferDataType(s.value),
    higher_is_better: s.higherIsBetter ?? true,
    comment: s.comment ?? null,
    metadata: s.metadata ?? null,
  }));
  return { ...SKIPPED_COLUMNS, outcome: "ok", scores: scoreColumns(asResult) };
}

/**
 * Writes posted scores as a run through the evaluation module's writer (evaluation/write.ts), like every
 * other run, and reads it back. The caller has already moved or deleted the pair's earlier run
 * under its lock. @throws Error when the pair still has a run (a caller that did not clear it).
 */
export async function insertPostedRun(tx: Tx, ids: { workspaceId: string; evaluatorId: string }, target: SpanTarget | ItemTarget, scores: readonly PostedScore[]): Promise<Run> {
  const now = new Date();
  const record: RunRecord = { ...ids, templateVersionId: null, target, params: {}, libraryVersions: {}, result: null, columns: postedColumns(scores), attempts: 1, startedAt: now, finishedAt: now };
  const [inserted] = await insertRuns(tx, [record]);
  if (!inserted) throw new Error(`posted scores of evaluator ${ids.evaluatorId} were not written: the pair already has a run`);
  return tx.run.findUniqueOrThrow({ where: { id: inserted.runId } });
}

/**
 * The live evaluator of the workspace that scores are posted for, by id or live name; a code
 * evaluator is refused at `evaluator` (added to `issues`: only external evaluators take posted scores).
 * @throws BadUserInputError for a blank name; NotFoundError when no live evaluator has that id or name.
 */
export async function postingEvaluator(prisma: PrismaClient | Tx, workspaceId: string, lookup: string, issues: InputIssue[]) {
  requireLookupName(lookup, "evaluator");
  const evaluator = await prisma.evaluator.findFirst({ where: { workspaceId, archivedAt: null, OR: [...(isUuid(lookup) ? [{ id: lookup }] : []), { liveName: lookup }] } });
  if (!evaluator) throw new NotFoundError("evaluator", lookup);
  if (!kindTraits(evaluator.kind).canBePosted) issues.push({ path: "evaluator", message: `"${evaluator.name}" is a ${evaluator.kind} evaluator: only external evaluators take posted scores` });
  return evaluator;
}

/**
 * Posts the scores of an external evaluator (an LLM judge running elsewhere, a person) on a span.
 * They are stored as a run (outcome ok, no template version); scores posted again for the same
 * span replace the earlier run, under the span's lock. Then every code evaluator downstream that
 * already ran on the span runs again (in dependency order, see `rerunAfterPost`), and the
 * dependents waiting for these scores are released.
 * @throws BadUserInputError for bad scores or a code evaluator; NotFoundError for the span or evaluator.
 */
export async function submitScores(deps: ReleaseDeps, principal: Principal, input: SubmitScoresInput): Promise<SubmitScoresResult> {
  const { prisma } = deps;
  const { workspaceId } = principal;
  const { data: scores, issues } = parseIssues(postedScoresSchema, input.scores, "scores");
  const span = isUuid(input.spanId) ? await prisma.span.findFirst({ where: { id: input.spanId, workspaceId }, select: { id: true } }) : null;
  if (!span) throw new NotFoundError("span", input.spanId);
  const evaluator = await postingEvaluator(prisma, workspaceId, input.evaluator, issues);
  if (issues.length || !scores) throw new BadUserInputError(issues);
  const { run, replaced } = await prisma.$transaction(async (tx) => {
    await lockSpan(tx, span.id);
    // The posted scores they replace stay readable as history (Run.history).
    const earlier = await tx.run.findMany({ where: { spanId: span.id, evaluatorId: evaluator.id }, select: { id: true } });
    await moveRunsToHistory(tx, earlier.map((r) => r.id), { reason: "scores_reposted" });
    const created = await insertPostedRun(tx, { workspaceId, evaluatorId: evaluator.id }, { spanId: span.id }, scores);
    return { run: created, replaced: earlier.length > 0 };
  });
  const rerun = await rerunAfterPost(deps, { workspaceId, spanId: span.id, evaluatorId: evaluator.id, tag: run.id });
  return { run, replaced, rerun };
}
