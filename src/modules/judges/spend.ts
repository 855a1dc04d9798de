import type { PrismaClient } from "../../lib/prisma.js";

/**
 * A judge evaluator's spend cap (Evaluator.maxCostPerHourUsd): the US dollars its runs cost over
 * the last rolling hour (Run.usage.costUsd, live and replaced runs alike; a cache hit costs 0 and a
 * model with no price counts 0, which the run says with costUsd null). A batch that starts under the
 * cap runs whole, so the cap may be passed by one batch's cost.
 */

/** The start of the skip reason of a run left out by the spend cap (stats count it). */
export const SPEND_CAP_REASON = "maxCostPerHourUsd";

/**
 * US dollars spent by the evaluator's runs created in the hour before `now`.
 * @returns the sum of Run.usage.costUsd (and of runs since replaced, in RunHistory).
 */
export async function spentLastHour(prisma: PrismaClient, evaluatorId: string, now: Date): Promise<number> {
  const since = new Date(now.getTime() - 3_600_000);
  const [row] = await prisma.$queryRaw<{ spent: number | null }[]>`
    SELECT (coalesce((SELECT sum((usage->>'costUsd')::float8) FROM "Run" WHERE "evaluatorId" = ${evaluatorId}::uuid AND "createdAt" >= ${since} AND usage IS NOT NULL), 0)
          + coalesce((SELECT sum((usage->>'costUsd')::float8) FROM "RunHistory" WHERE "evaluatorId" = ${evaluatorId}::uuid AND "createdAt" >= ${since} AND usage IS NOT NULL), 0))::float8 AS spent`;
  return row?.spent ?? 0;
}

/** The skip reason of a run past the cap: the cap and what was spent, in US dollars. */
export function spendCapReason(capUsd: number, spentUsd: number): string {
  return `${SPEND_CAP_REASON} ($${capUsd}) reached: $${spentUsd.toFixed(6)} spent in the last hour`;
}
