import type { Prisma } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { Tx } from "../../lib/prisma.js";
import { gatePasses, type Gate, type GateScore } from "./graph.js";
import { gateOf } from "./store.js";

/** One declared dependency of an evaluator, with the dependency's current name. */
export interface DeclaredDependency {
  dependsOnId: string;
  /** The key of `ctx.score` and of `document.scores`. */
  name: string;
  gate: Gate | null;
}

/** The run of a dependency on the span, as a dependent reads it. */
export interface InputRun {
  id: string;
  evaluatorId: string;
  outcome: string;
  scores: (GateScore & { value: Prisma.JsonValue })[];
}

/** What a dependent reads of its dependencies on one span: their runs by evaluator id. */
export type SpanInputs = ReadonlyMap<string, InputRun>;

/** The declared dependencies of an evaluator, in saved order, with their names now. */
export async function declaredDependencies(prisma: PrismaClient | Tx, evaluatorId: string): Promise<DeclaredDependency[]> {
  const rows = await prisma.evaluatorDependency.findMany({
    where: { evaluatorId },
    include: { dependsOn: { select: { name: true } } },
    orderBy: { position: "asc" },
  });
  return rows.map((r) => ({ dependsOnId: r.dependsOnId, name: r.dependsOn.name, gate: gateOf(r) }));
}

/** The current runs of the dependencies on a span (a dependency with no run is absent). */
export async function spanInputs(prisma: PrismaClient | Tx, spanId: string, dependencies: readonly DeclaredDependency[]): Promise<SpanInputs> {
  if (dependencies.length === 0) return new Map();
  const runs = await prisma.run.findMany({
    where: { spanId, evaluatorId: { in: dependencies.map((d) => d.dependsOnId) } },
    select: { id: true, evaluatorId: true, outcome: true, scores: { orderBy: { position: "asc" }, select: { name: true, dataType: true, numericValue: true, higherIsBetter: true, value: true } } },
  });
  return new Map(runs.map((r) => [r.evaluatorId, r]));
}

/** The current runs of the dependencies on many spans, in one query: span id → its inputs (a span with none is absent). */
export async function spansInputs(prisma: PrismaClient | Tx, spanIds: readonly string[], dependencies: readonly DeclaredDependency[]): Promise<Map<string, SpanInputs>> {
  if (dependencies.length === 0 || spanIds.length === 0) return new Map();
  const runs = await prisma.run.findMany({
    where: { spanId: { in: [...spanIds] }, evaluatorId: { in: dependencies.map((d) => d.dependsOnId) } },
    select: { id: true, spanId: true, evaluatorId: true, outcome: true, scores: { orderBy: { position: "asc" }, select: { name: true, dataType: true, numericValue: true, higherIsBetter: true, value: true } } },
  });
  const out = new Map<string, Map<string, InputRun>>();
  for (const { spanId, ...run } of runs) {
    const inputs = out.get(spanId!) ?? new Map<string, InputRun>();
    inputs.set(run.evaluatorId, run);
    out.set(spanId!, inputs);
  }
  return out;
}

/** The run ids read: dependency evaluator id → run id (stored on the dependent's run as `inputRunIds`). */
export function inputRunIds(inputs: SpanInputs): Record<string, string> {
  return Object.fromEntries([...inputs].map(([evaluatorId, run]) => [evaluatorId, run.id]));
}

/**
 * True while a dependent's run is current: every declared dependency still has the run that it
 * read (or still has none). A dependency whose scores were posted again has a new run, so the
 * dependent is stale and runs again.
 */
export function isCurrent(recorded: unknown, dependencies: readonly DeclaredDependency[], inputs: SpanInputs): boolean {
  const read = typeof recorded === "object" && recorded !== null ? (recorded as Record<string, unknown>) : {};
  return dependencies.every((d) => (read[d.dependsOnId] ?? null) === (inputs.get(d.dependsOnId)?.id ?? null));
}

/** `document.scores`: dependency name → score name → value, for the dependencies that have a run. */
export function documentScores(dependencies: readonly DeclaredDependency[], inputs: SpanInputs): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const d of dependencies) {
    const run = inputs.get(d.dependsOnId);
    if (run) out[d.name] = Object.fromEntries(run.scores.map((s) => [s.name, s.value]));
  }
  return out;
}

/**
 * The first gate that does not pass, as a skip reason, or null when every gate passes (or there
 * is none). A dependency with no run on the span fails its gate.
 */
export function failedGate(dependencies: readonly DeclaredDependency[], inputs: SpanInputs): string | null {
  for (const d of dependencies) {
    if (!d.gate) continue;
    const decision = gatePasses(inputs.get(d.dependsOnId)?.scores ?? null, d.gate, d.name);
    if (!decision.passed) return decision.reason!;
  }
  return null;
}

/** Takes the per-span locks of many spans (in one sorted order, so two writers cannot deadlock) for the rest of the transaction. */
export async function lockSpans(tx: Tx, spanIds: readonly string[]): Promise<void> {
  const keys = [...new Set(spanIds)].sort().map((id) => `span:${id}`);
  if (keys.length === 0) return;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(${keys}::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n`;
}

/** Takes the per-span lock of dependency bookkeeping for the rest of the transaction (posted scores and dependent runs). */
export async function lockSpan(tx: Tx, spanId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`span:${spanId}`}, 0))`;
}
