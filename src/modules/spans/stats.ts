import type { Prisma } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { SkipReason } from "./matching.js";

/** Counts of one evaluator over one ingest batch (new spans only). */
export interface MatchCounts {
  matched: number;
  disabled: number;
  kind: number;
  name: number;
  attributes: number;
  sampling: number;
}

/** Zero counts. */
export function emptyCounts(): MatchCounts {
  return { matched: 0, disabled: 0, kind: 0, name: 0, attributes: 0, sampling: 0 };
}

/** Adds one decision to the counts. */
export function countDecision(counts: MatchCounts, decision: { matched: boolean; reason?: SkipReason }): void {
  if (decision.matched) counts.matched += 1;
  else counts[decision.reason!] += 1;
}

/**
 * Of the (span, code evaluator) pairs that a re-sent span matched, the ones owed now: no run on the
 * span and not owed already (an evaluator created, enabled or changed since the span first
 * arrived). Records them as owed (so the reconciler keeps them like new spans' evaluations) and
 * counts each as matched, so `spansMatched` counts every span an evaluator was queued on, first
 * sent or re-sent, once (a later re-send finds the run or the owed row). Concurrent re-sends
 * cannot both count a pair: only the insert that creates the owed row does.
 * @returns how many pairs became owed (the evaluations this re-send queued)
 */
export async function owedOnResend(
  tx: Prisma.TransactionClient,
  workspaceId: string,
  matched: readonly { spanId: string; evaluatorId: string }[],
  counts: Map<string, MatchCounts>,
): Promise<number> {
  if (matched.length === 0) return 0;
  const ran = await tx.run.findMany({
    where: { spanId: { in: [...new Set(matched.map((p) => p.spanId))] }, evaluatorId: { in: [...new Set(matched.map((p) => p.evaluatorId))] } },
    select: { spanId: true, evaluatorId: true },
  });
  const done = new Set(ran.map((r) => `${r.spanId}/${r.evaluatorId}`));
  const owed = matched.filter((p) => !done.has(`${p.spanId}/${p.evaluatorId}`)).map((p) => ({ ...p, workspaceId }));
  if (owed.length === 0) return 0;
  const created = await tx.owedEvaluation.createManyAndReturn({ data: owed, skipDuplicates: true, select: { evaluatorId: true } });
  for (const row of created) counts.get(row.evaluatorId)!.matched += 1;
  return created.length;
}

/**
 * Adds a batch's counts to each evaluator's EvaluatorMatchStats row in one statement (rows are
 * locked in evaluator id order, so two concurrent ingests cannot deadlock).
 */
export async function recordMatchStats(prisma: Pick<PrismaClient, "$executeRaw">, workspaceId: string, byEvaluator: Map<string, MatchCounts>): Promise<void> {
  const rows = [...byEvaluator.entries()]
    .filter(([, c]) => Object.values(c).some((n) => n > 0))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([evaluatorId, c]) => ({ evaluatorId, ...c }));
  if (rows.length === 0) return;
  await prisma.$executeRaw`
    INSERT INTO "EvaluatorMatchStats" AS s ("evaluatorId", "workspaceId", "spansMatched", "skippedDisabled", "skippedKind",
      "skippedName", "skippedAttributes", "skippedSampling", "lastMatchedAt", "lastSeenAt")
    SELECT (e->>'evaluatorId')::uuid, ${workspaceId}::uuid, (e->>'matched')::int, (e->>'disabled')::int, (e->>'kind')::int,
      (e->>'name')::int, (e->>'attributes')::int, (e->>'sampling')::int,
      CASE WHEN (e->>'matched')::int > 0 THEN now() AT TIME ZONE 'UTC' END, now() AT TIME ZONE 'UTC'
    FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) AS e
    ON CONFLICT ("evaluatorId") DO UPDATE SET
      "spansMatched" = s."spansMatched" + EXCLUDED."spansMatched",
      "skippedDisabled" = s."skippedDisabled" + EXCLUDED."skippedDisabled",
      "skippedKind" = s."skippedKind" + EXCLUDED."skippedKind",
      "skippedName" = s."skippedName" + EXCLUDED."skippedName",
      "skippedAttributes" = s."skippedAttributes" + EXCLUDED."skippedAttributes",
      "skippedSampling" = s."skippedSampling" + EXCLUDED."skippedSampling",
      "lastMatchedAt" = COALESCE(EXCLUDED."lastMatchedAt", s."lastMatchedAt"),
      "lastSeenAt" = EXCLUDED."lastSeenAt"`;
}
