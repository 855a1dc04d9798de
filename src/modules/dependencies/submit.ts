import type { Prisma, Run } from "../../generated/prisma/client.js";
import { BadUserInputError, NotFoundError } from "../../lib/errors.js";
import { parseIssues } from "../../lib/validation.js";
import { moveRunsToHistory } from "../runs/history.js";
import { numericValueOf } from "../runs/record.js";
import { isUuid } from "../../lib/uuid.js";
import type { Principal } from "../../lib/principal.js";
import { lockSpan } from "./input-runs.js";
import { rerunAfterPost, type ReleaseDeps } from "./release.js";
import { inferDataType, postedScoresSchema, type PostedScore } from "./schemas.js";

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

/** The stored columns of a posted score, with the ids of its run (a span's, or an experiment item's). */
export function scoreRow<Ids extends { workspaceId: string; evaluatorId: string }>(score: PostedScore, position: number, ids: Ids) {
  return {
    ...ids,
    position,
    name: score.name,
    dataType: score.dataType ?? inferDataType(score.value),
    value: score.value as Prisma.InputJsonValue,
    numericValue: numericValueOf(score.value),
    higherIsBetter: score.higherIsBetter ?? true,
    comment: score.comment ?? null,
    metadata: (score.metadata ?? undefined) as Prisma.InputJsonValue | undefined,
  };
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
  const evaluator = await prisma.evaluator.findFirst({
    where: { workspaceId, archivedAt: null, OR: [...(isUuid(input.evaluator) ? [{ id: input.evaluator }] : []), { liveName: input.evaluator }] },
  });
  if (!evaluator) throw new NotFoundError("evaluator", input.evaluator);
  if (evaluator.kind !== "external") issues.push({ path: "evaluator", message: `"${evaluator.name}" is a code evaluator: only external evaluators take posted scores` });
  if (issues.length || !scores) throw new BadUserInputError(issues);
  const ids = { workspaceId, evaluatorId: evaluator.id, spanId: span.id };
  const now = new Date();
  const { run, replaced } = await prisma.$transaction(async (tx) => {
    await lockSpan(tx, span.id);
    // The posted scores they replace stay readable as history (Run.history).
    const earlier = await tx.run.findMany({ where: { spanId: span.id, evaluatorId: evaluator.id }, select: { id: true } });
    await moveRunsToHistory(tx, earlier.map((r) => r.id), null);
    const created = await tx.run.create({
      data: { ...ids, outcome: "ok", attempts: 1, durationMs: 0, startedAt: now, finishedAt: now, scores: { create: scores.map((s, i) => scoreRow(s, i, ids)) } },
    });
    return { run: created, replaced: earlier.length > 0 };
  });
  const rerun = await rerunAfterPost(deps, { workspaceId, spanId: span.id, evaluatorId: evaluator.id, tag: run.id });
  return { run, replaced, rerun };
}
