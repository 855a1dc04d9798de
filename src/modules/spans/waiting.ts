import type { PrismaClient } from "../../lib/prisma.js";
import { MATCHABLE_SPAN_SELECT, matchSpan, RULE_SELECT } from "./matching.js";
import { BARRIER_DELAY_MS } from "../dependencies/barriers.js";
import { kindTraits } from "../evaluators/kinds.js";

/**
 * What a dependent waits for on a live span, read from Postgres (docs/evaluation.md § Dependencies and gates).
 *
 * A code evaluator queued on a span (an `OwedEvaluation` row) with no run there yet waits, through
 * its barriers (runs/flows.ts), for each dependency that matched the span and has no run there yet (an
 * external evaluator whose scores were never posted, or a code one still queued). Each barrier is
 * a safety net that expires `BARRIER_DELAY_MS[kind]` after the evaluation was queued (the owed
 * row's `createdAt`, written with the barriers); the dependent then runs with what there is.
 */

/** One dependency a dependent waits for. */
export interface WaitedDependency {
  evaluatorId: string;
  name: string;
  /** code or external. */
  kind: string;
  /** When this dependency's safety net expires (the barrier's delay from `since`). */
  expiresAt: Date;
}

/** A dependent waiting on one span. */
export interface DependencyWait {
  spanId: string;
  /** The dependent. */
  evaluatorId: string;
  evaluatorName: string;
  waitingFor: WaitedDependency[];
  /** When its evaluation on the span was queued. */
  since: Date;
  /** When it runs at the latest without the missing scores: the last expiry of `waitingFor`. */
  expiresAt: Date;
}

/** Most queued evaluations read for one evaluator's count (the oldest first); past it the count is a lower bound. */
export const MAX_WAITS_READ = 10_000;

/** The safety-net delay of a barrier on a dependency of `kind`, in ms. */
function delayOf(kind: string): number {
  return kindTraits(kind).canBePosted ? BARRIER_DELAY_MS.external : BARRIER_DELAY_MS.code;
}

/**
 * The dependents that wait on live spans of the workspace, oldest first: on one span (`spanId`),
 * for one dependent (`evaluatorId`), or both. Pure reads; at most {@link MAX_WAITS_READ} queued
 * evaluations are looked at.
 */
export async function dependencyWaits(prisma: PrismaClient, workspaceId: string, by: { spanId?: string; evaluatorId?: string }): Promise<DependencyWait[]> {
  const owed = await prisma.owedEvaluation.findMany({
    where: { workspaceId, targetType: "span", ...(by.spanId ? { targetId: by.spanId } : {}), ...(by.evaluatorId ? { evaluatorId: by.evaluatorId } : {}), evaluator: { dependencies: { some: {} }, archivedAt: null } },
    orderBy: { createdAt: "asc" },
    take: MAX_WAITS_READ,
    select: {
      targetId: true,
      createdAt: true,
      evaluator: {
        select: {
          id: true,
          name: true,
          dependencies: { orderBy: { position: "asc" }, select: { dependsOn: { select: { ...RULE_SELECT, name: true, kind: true, archivedAt: true } } } },
        },
      },
    },
  });
  if (owed.length === 0) return [];
  const involved = [...new Set(owed.flatMap((o) => [o.evaluator.id, ...o.evaluator.dependencies.map((d) => d.dependsOn.id)]))];
  const spanIds = [...new Set(owed.map((o) => o.targetId))];
  // The owed row has no relation to its target (polymorphic): the spans are read by id.
  const [runs, spanRows] = await Promise.all([
    prisma.run.findMany({ where: { spanId: { in: spanIds }, evaluatorId: { in: involved } }, select: { spanId: true, evaluatorId: true } }),
    prisma.span.findMany({ where: { workspaceId, id: { in: spanIds } }, select: { id: true, ...MATCHABLE_SPAN_SELECT } }),
  ]);
  const spans = new Map(spanRows.map((s) => [s.id, s]));
  const ran = new Set(runs.map((r) => `${r.spanId}/${r.evaluatorId}`));
  const waits: DependencyWait[] = [];
  for (const o of owed) {
    const span = spans.get(o.targetId);
    if (!span) continue; // the span is gone (its owed row goes with it)
    if (ran.has(`${o.targetId}/${o.evaluator.id}`)) continue; // it ran: nothing waits (the owed row is cleaned later)
    const waitingFor = o.evaluator.dependencies
      .map((d) => d.dependsOn)
      .filter((dep) => dep.archivedAt === null && !ran.has(`${o.targetId}/${dep.id}`) && matchSpan(dep, span).matched)
      .map((dep) => ({ evaluatorId: dep.id, name: dep.name, kind: dep.kind, expiresAt: new Date(o.createdAt.getTime() + delayOf(dep.kind)) }));
    if (waitingFor.length === 0) continue;
    waits.push({
      spanId: o.targetId,
      evaluatorId: o.evaluator.id,
      evaluatorName: o.evaluator.name,
      waitingFor,
      since: o.createdAt,
      expiresAt: new Date(Math.max(...waitingFor.map((w) => w.expiresAt.getTime()))),
    });
  }
  return waits;
}

/**
 * The explainMatch detail of a waiting dependent: `matched; waiting for "Answer relevance"
 * (external) since T; the safety net expires at E, then it runs with what there is` (ISO 8601, UTC).
 */
export function describeWait(wait: DependencyWait): string {
  const names = wait.waitingFor.map((w) => `"${w.name}" (${w.kind})`).join(" and ");
  return `matched; waiting for ${names} since ${wait.since.toISOString()}; the safety net expires at ${wait.expiresAt.toISOString()}, then it runs with what there is`;
}
