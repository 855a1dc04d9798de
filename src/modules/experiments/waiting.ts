import type { PrismaClient } from "../../lib/prisma.js";

/**
 * What an experiment's items wait for (docs/evaluation.md § Experiments): an evaluator of the
 * experiment that depends on an external evaluator does not run on an item until that
 * evaluator's scores are posted for it (submitScores), or until the experiment's wait ends
 * (`createdAt + dependencyWaitSeconds`); then it runs without them. Its dependents among the
 * experiment's evaluators wait with it. Read from Postgres (one recursive query), so the API
 * answers what the workers will do, whatever process asks.
 */

/** One (item, evaluator) that waits. */
export interface ExperimentItemWait {
  datasetItemId: string;
  /** The item's position in the dataset and its own id there, when it has one. */
  position: number;
  externalId: string | null;
  /** The waiting evaluator. */
  evaluatorId: string;
  evaluatorName: string;
  /** The external evaluators whose posted scores it waits for (directly, or through a dependency). */
  waitingFor: { evaluatorId: string; name: string }[];
  /** The sentence: for what, through what, until when. */
  reason: string;
  /** When the wait began (the experiment's creation). */
  since: Date;
  /** When it runs without the missing scores (the experiment's wait ends). */
  expiresAt: Date;
}

/** Per evaluator of the experiment: its items that wait. */
export interface ExperimentEvaluatorWait {
  evaluatorId: string;
  evaluatorName: string;
  /** Items it waits on. */
  items: number;
  waitingFor: { evaluatorId: string; name: string }[];
  reason: string;
  expiresAt: Date;
}

/** The waits of an experiment: items waiting, per evaluator, and the deadline. */
export interface ExperimentWaits {
  /** Items with at least one waiting evaluator. */
  items: number;
  /** The end of the experiment's wait (null when nothing waits). */
  until: Date | null;
  evaluators: ExperimentEvaluatorWait[];
}

/** The experiment fields the waits depend on. */
export type WaitingExperiment = { id: string; datasetId: string; itemCount: number; createdAt: Date; dependencyWaitSeconds: number; status: string };

/** When the experiment's wait for posted scores ends. */
export function waitDeadline(experiment: Pick<WaitingExperiment, "createdAt" | "dependencyWaitSeconds">): Date {
  return new Date(experiment.createdAt.getTime() + experiment.dependencyWaitSeconds * 1000);
}

/** True while an experiment's dependents may still wait: not finished, and its wait not over. */
function mayWait(experiment: WaitingExperiment, now: Date): boolean {
  return (experiment.status === "queued" || experiment.status === "running") && now < waitDeadline(experiment);
}

interface WaitRow {
  item: string;
  position: number;
  externalId: string | null;
  evaluator: string;
  evaluatorName: string;
  waitsFor: string;
  waitsForName: string;
  via: string;
  viaName: string;
}

/**
 * The (item, evaluator, external evaluator it waits for, the dependency it waits through) rows:
 * directly, an experiment evaluator with no run on the item, an external dependency without
 * posted scores there; then, recursively, an experiment evaluator with no run on the item whose
 * dependency waits there.
 */
function waitRows(prisma: PrismaClient, experiment: WaitingExperiment, tail: string, params: unknown[]): Promise<WaitRow[]> {
  return prisma.$queryRawUnsafe<WaitRow[]>(
    `WITH RECURSIVE members AS (
       SELECT ee."evaluatorId" AS id, ee.position FROM "ExperimentEvaluator" ee WHERE ee."experimentId" = $1::uuid
     ), items AS (
       SELECT i.id, i.position, i."externalId" FROM "DatasetItem" i WHERE i."datasetId" = $2::uuid AND i.position < $3::int
     ), ran AS (
       SELECT r."datasetItemId" AS item, r."evaluatorId" AS evaluator FROM "Run" r WHERE r."experimentId" = $1::uuid
     ), waiting(item, evaluator, waits_for, via) AS (
       SELECT i.id, d."evaluatorId", d."dependsOnId", d."dependsOnId"
       FROM items i
       CROSS JOIN "EvaluatorDependency" d
       JOIN "Evaluator" x ON x.id = d."dependsOnId" AND x.kind = 'external'
       WHERE d."evaluatorId" IN (SELECT id FROM members)
         AND NOT EXISTS (SELECT 1 FROM ran WHERE ran.item = i.id AND ran.evaluator = d."dependsOnId")
         AND NOT EXISTS (SELECT 1 FROM ran WHERE ran.item = i.id AND ran.evaluator = d."evaluatorId")
       UNION
       SELECT w.item, d."evaluatorId", w.waits_for, w.evaluator
       FROM waiting w
       JOIN "EvaluatorDependency" d ON d."dependsOnId" = w.evaluator
       WHERE d."evaluatorId" IN (SELECT id FROM members)
         AND NOT EXISTS (SELECT 1 FROM ran WHERE ran.item = w.item AND ran.evaluator = d."evaluatorId")
     )
     SELECT w.item, i.position, i."externalId", w.evaluator, e.name AS "evaluatorName", w.waits_for AS "waitsFor", x.name AS "waitsForName", w.via, v.name AS "viaName"
     FROM waiting w
     JOIN items i ON i.id = w.item
     JOIN members m ON m.id = w.evaluator
     JOIN "Evaluator" e ON e.id = w.evaluator
     JOIN "Evaluator" x ON x.id = w.waits_for
     JOIN "Evaluator" v ON v.id = w.via
     ${tail}`,
    experiment.id,
    experiment.datasetId,
    experiment.itemCount,
    ...params,
  );
}

/** The sentence of a wait: `waits for the scores of external evaluator "Human label" to be posted (submitScores), through "Groundedness"; at T it runs without them`. */
function reasonOf(waitingFor: { name: string }[], via: string[], expiresAt: Date): string {
  const names = waitingFor.map((w) => `"${w.name}"`).join(" and ");
  const through = via.length ? `, through ${via.map((n) => `"${n}"`).join(" and ")}` : "";
  return `waits for the scores of external evaluator ${names} to be posted for the item (submitScores)${through}; at ${expiresAt.toISOString()} it runs without them`;
}

/** Rows of one (item, evaluator), or of one evaluator, folded: the external evaluators and the dependencies waited through. */
function fold(rows: WaitRow[]): { waitingFor: { evaluatorId: string; name: string }[]; via: string[] } {
  const waitingFor = new Map<string, string>();
  const via = new Set<string>();
  for (const r of rows) {
    waitingFor.set(r.waitsFor, r.waitsForName);
    if (r.via !== r.waitsFor) via.add(r.viaName);
  }
  return { waitingFor: [...waitingFor].map(([evaluatorId, name]) => ({ evaluatorId, name })), via: [...via] };
}

/**
 * The waits of an experiment now: items waiting and, per evaluator, how many items, for what and
 * until when. Nothing waits once the experiment finished or its wait is over (its safety-net jobs
 * then run the dependents without the missing scores).
 */
export async function experimentWaits(prisma: PrismaClient, experiment: WaitingExperiment, now = new Date()): Promise<ExperimentWaits> {
  if (!mayWait(experiment, now)) return { items: 0, until: null, evaluators: [] };
  const expiresAt = waitDeadline(experiment);
  const rows = await waitRows(prisma, experiment, "", []);
  if (rows.length === 0) return { items: 0, until: null, evaluators: [] };
  const byEvaluator = new Map<string, WaitRow[]>();
  for (const r of rows) byEvaluator.set(r.evaluator, [...(byEvaluator.get(r.evaluator) ?? []), r]);
  const members = await prisma.experimentEvaluator.findMany({ where: { experimentId: experiment.id }, select: { evaluatorId: true }, orderBy: { position: "asc" } });
  const order = new Map(members.map((m, i) => [m.evaluatorId, i]));
  const evaluators = [...byEvaluator].map(([evaluatorId, list]) => {
    const { waitingFor, via } = fold(list);
    return { evaluatorId, evaluatorName: list[0]!.evaluatorName, items: new Set(list.map((r) => r.item)).size, waitingFor, reason: reasonOf(waitingFor, via, expiresAt), expiresAt };
  });
  evaluators.sort((a, b) => (order.get(a.evaluatorId) ?? 0) - (order.get(b.evaluatorId) ?? 0));
  return { items: new Set(rows.map((r) => r.item)).size, until: expiresAt, evaluators };
}

/**
 * A page of the (item, evaluator) pairs that wait, in item order then the experiment's evaluator
 * order: `offset` and `limit` count pairs.
 */
export async function experimentItemWaits(prisma: PrismaClient, experiment: WaitingExperiment, page: { offset: number; limit: number }, now = new Date()): Promise<ExperimentItemWait[]> {
  if (!mayWait(experiment, now)) return [];
  const expiresAt = waitDeadline(experiment);
  // The page's pairs first (distinct, ordered), then all their rows.
  const rows = await waitRows(
    prisma,
    experiment,
    `WHERE (w.item, w.evaluator) IN (
       SELECT p.item, p.evaluator FROM (SELECT DISTINCT w2.item, w2.evaluator, i2.position AS ip, m2.position AS mp FROM waiting w2 JOIN items i2 ON i2.id = w2.item JOIN members m2 ON m2.id = w2.evaluator) p
       ORDER BY p.ip, p.mp LIMIT $4::int OFFSET $5::int)
     ORDER BY i.position, m.position`,
    [page.limit, page.offset],
  );
  const pairs = new Map<string, WaitRow[]>();
  for (const r of rows) pairs.set(`${r.item}/${r.evaluator}`, [...(pairs.get(`${r.item}/${r.evaluator}`) ?? []), r]);
  return [...pairs.values()].map((list) => {
    const { waitingFor, via } = fold(list);
    const first = list[0]!;
    return {
      datasetItemId: first.item,
      position: first.position,
      externalId: first.externalId,
      evaluatorId: first.evaluator,
      evaluatorName: first.evaluatorName,
      waitingFor,
      reason: reasonOf(waitingFor, via, expiresAt),
      since: experiment.createdAt,
      expiresAt,
    };
  });
}
