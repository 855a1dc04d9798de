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
 * Records the new spans' owed evaluations (a pair already owed is left as it is) and adds a
 * batch's counts to each evaluator's EvaluatorMatchStats row, in ONE statement (one round trip
 * of the ingest transaction). Stats rows are locked in evaluator id order, so two concurrent
 * ingests cannot deadlock.
 * @returns how many owed rows were created.
 */
export async function recordOwedAndMatchStats(
  prisma: Pick<PrismaClient, "$queryRaw">,
  workspaceId: string,
  owed: readonly { spanId: string; evaluatorId: string }[],
  byEvaluator: Map<string, MatchCounts>,
): Promise<number> {
  const rows = [...byEvaluator.entries()]
    .filter(([, c]) => Object.values(c).some((n) => n > 0))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([evaluatorId, c]) => ({ evaluatorId, ...c }));
  if (rows.length === 0 && owed.length === 0) return 0;
  // createdAt as Prisma writes it (the app's clock, UTC), so the reconciler's grace reads it as before.
  const [row] = await prisma.$queryRaw<{ owed: number }[]>`
    WITH owed AS (
      INSERT INTO "OwedEvaluation" ("spanId", "evaluatorId", "workspaceId", "createdAt")
      SELECT (o->>'spanId')::uuid, (o->>'evaluatorId')::uuid, ${workspaceId}::uuid, ${new Date().toISOString()}::timestamp(3)
      FROM jsonb_array_elements(${JSON.stringify(owed.map((p) => ({ spanId: p.spanId, evaluatorId: p.evaluatorId })))}::jsonb) AS o
      ON CONFLICT DO NOTHING
      RETURNING 1
    ), stats AS (
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
        "lastSeenAt" = EXCLUDED."lastSeenAt"
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM owed)::int AS owed`;
  return row?.owed ?? 0;
}
