import type { PrismaClient } from "../../lib/prisma.js";
import type { InputIssue } from "../../lib/errors.js";
import { isUuid } from "../../lib/uuid.js";
import type { Tx } from "../../lib/prisma.js";
import { findCycle, type DependencyMap, type Gate } from "./graph.js";
import type { DependencyInput } from "./schemas.js";
import { GROUP_TARGET_TYPES, type GateSpans } from "../../lib/closed-lists.js";

/** One saved dependency edge. */
export interface DependencyEdge {
  /** The dependent evaluator. */
  evaluatorId: string;
  /** The evaluator it runs after. */
  dependsOnId: string;
  /** Run only when this score of `dependsOnId` passes; null: no gate. */
  gate: Gate | null;
  /** Found in the dependent's code (a literal ctx.score("Name", ...)) rather than declared. */
  inferred: boolean;
}

/** Edges as a map: evaluator id → ids it depends on (in saved order). */
export function toDependencyMap(edges: readonly Pick<DependencyEdge, "evaluatorId" | "dependsOnId">[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const e of edges) map.set(e.evaluatorId, [...(map.get(e.evaluatorId) ?? []), e.dependsOnId]);
  return map;
}

/** Whether a target (Evaluator.target) is a trace or a session: a group of spans. */
function isGroupTarget(target: string | undefined): boolean {
  return target !== undefined && (GROUP_TARGET_TYPES as readonly string[]).includes(target);
}

/**
 * The dependency rules of trace and session evaluators (docs/evaluation.md § Targets): a span
 * evaluator never depends on a trace or session evaluator (a span is evaluated before its trace or
 * session is done, so the scores it would read do not exist yet); a trace or session evaluator
 * depends on span evaluators only (it reads their scores per span of the group). The issue of one
 * edge, or null.
 */
function groupEdgeIssue(evaluator: { name: string; target?: string }, dependsOn: { name: string; target: string }): string | null {
  if (!isGroupTarget(dependsOn.target)) return null;
  if (isGroupTarget(evaluator.target)) {
    return `"${dependsOn.name}" is a ${dependsOn.target} evaluator: a trace or session evaluator depends on span evaluators only (it reads their scores on each span of the group)`;
  }
  return `"${dependsOn.name}" is a ${dependsOn.target} evaluator: a span evaluator cannot depend on a trace or session evaluator (its span is evaluated before the ${dependsOn.target} is done)`;
}

/** The gate of a stored dependency row (EvaluatorDependency's gate columns), or null. */
export function gateOf(row: { gateScore: string | null; gateAt: number | null; gateSpans: string | null }): Gate | null {
  return row.gateScore === null ? null : { score: row.gateScore, at: row.gateAt, spans: (row.gateSpans as GateSpans | null) ?? null };
}

/** A stored row as an edge. */
function edgeOf(row: { evaluatorId: string; dependsOnId: string; gateScore: string | null; gateAt: number | null; gateSpans: string | null; inferred: boolean }): DependencyEdge {
  return { evaluatorId: row.evaluatorId, dependsOnId: row.dependsOnId, gate: gateOf(row), inferred: row.inferred };
}

/**
 * The dependency edges of the given evaluators (each evaluator's own list, gates included), in
 * saved order. For experiments: `toDependencyMap(await loadDependencyEdges(prisma, ids))` is the
 * `DependencyMap` their ordering needs.
 */
export async function loadDependencyEdges(prisma: PrismaClient | Tx, evaluatorIds: readonly string[]): Promise<DependencyEdge[]> {
  if (evaluatorIds.length === 0) return [];
  const rows = await prisma.evaluatorDependency.findMany({ where: { evaluatorId: { in: [...evaluatorIds] } }, orderBy: [{ evaluatorId: "asc" }, { position: "asc" }] });
  return rows.map(edgeOf);
}

/** Every edge among the workspace's evaluators. */
export async function workspaceEdges(prisma: PrismaClient | Tx, workspaceId: string): Promise<DependencyEdge[]> {
  const rows = await prisma.evaluatorDependency.findMany({ where: { evaluator: { workspaceId } }, orderBy: { position: "asc" } });
  return rows.map(edgeOf);
}

/**
 * Replaces the dependencies of an evaluator inside its save transaction. Each dependency names a
 * live evaluator of the workspace by id or by name; unknown ones, the evaluator itself, the same
 * one twice, a trace or session evaluator on either side of the edge (see {@link groupEdgeIssue}),
 * and a list that would close a cycle (named as `A → B → A`) add issues at
 * `dependencies[i]…` and nothing is written. Saves of one workspace's dependencies are
 * serialised (an advisory lock), so two concurrent saves cannot each close half of a cycle.
 * @returns the issues (empty when saved).
 */
export async function saveDependencies(
  tx: Tx,
  evaluator: { id: string; workspaceId: string; name: string; target?: string },
  inputs: readonly DependencyInput[],
): Promise<InputIssue[]> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`deps:${evaluator.workspaceId}`}, 0))`;
  const issues: InputIssue[] = [];
  const byRef = inputs.map((d) => d.evaluator);
  const found = await tx.evaluator.findMany({
    where: { workspaceId: evaluator.workspaceId, archivedAt: null, OR: [{ id: { in: byRef.filter(isUuid) } }, { liveName: { in: byRef } }] },
    select: { id: true, name: true, target: true },
  });
  const resolved: { dependsOnId: string; gate: Gate | null }[] = [];
  inputs.forEach((d, i) => {
    const target = found.find((e) => e.id === d.evaluator) ?? found.find((e) => e.name === d.evaluator);
    if (!target) issues.push({ path: `dependencies[${i}].evaluator`, message: `no live evaluator named or with id "${d.evaluator}" in this workspace` });
    else if (target.id === evaluator.id) issues.push({ path: `dependencies[${i}].evaluator`, message: "an evaluator cannot depend on itself" });
    else if (resolved.some((r) => r.dependsOnId === target.id)) issues.push({ path: `dependencies[${i}].evaluator`, message: `"${target.name}" is listed twice` });
    else if (groupEdgeIssue(evaluator, target)) issues.push({ path: `dependencies[${i}].evaluator`, message: groupEdgeIssue(evaluator, target)! });
    else if (d.gate && isGroupTarget(evaluator.target) && !d.gate.spans) {
      // A group holds many spans of the dependency: which must pass is the caller's choice, never a silent default.
      issues.push({ path: `dependencies[${i}].gate.spans`, message: `a ${evaluator.target} evaluator's gate says which spans of the ${evaluator.target} must pass "${target.name}"'s score: any or all` });
    }
    else if (d.gate?.spans && !isGroupTarget(evaluator.target)) {
      issues.push({ path: `dependencies[${i}].gate.spans`, message: "is for a trace or session evaluator's gate only: a span evaluator's gate decides its one span" });
    }
    else resolved.push({ dependsOnId: target.id, gate: d.gate ? { score: d.gate.score, at: d.gate.at ?? null, spans: d.gate.spans ?? null } : null });
  });
  if (issues.length) return issues;
  const edges = (await workspaceEdges(tx, evaluator.workspaceId)).filter((e) => e.evaluatorId !== evaluator.id);
  const map: DependencyMap = toDependencyMap([...edges, ...resolved.map((r) => ({ evaluatorId: evaluator.id, ...r }))]);
  const cycle = findCycle(new Map([[evaluator.id, map.get(evaluator.id) ?? []], ...map]));
  if (cycle) {
    const names = new Map((await tx.evaluator.findMany({ where: { id: { in: cycle } }, select: { id: true, name: true } })).map((e) => [e.id, e.name]));
    names.set(evaluator.id, evaluator.name);
    return [{ path: "dependencies", message: `would make a cycle: ${cycle.map((id) => names.get(id) ?? id).join(" → ")}` }];
  }
  await tx.evaluatorDependency.deleteMany({ where: { evaluatorId: evaluator.id } });
  await tx.evaluatorDependency.createMany({
    data: resolved.map((r, position) => ({ evaluatorId: evaluator.id, dependsOnId: r.dependsOnId, position, gateScore: r.gate?.score ?? null, gateAt: r.gate?.at ?? null, gateSpans: r.gate?.spans ?? null })),
  });
  return [];
}

/**
 * Keeps an evaluator's inferred dependencies in step with the code it runs, inside its save
 * transaction: every evaluator named in a literal `ctx.score("Name", ...)` of that code
 * (`TemplateVersion.scoreReads`) and not declared explicitly becomes an edge marked `inferred`
 * (no gate), after the declared ones; earlier inferred edges are replaced. A name that is no
 * live evaluator of the workspace, the evaluator's own name, an edge with a trace or session
 * evaluator on either side (as {@link saveDependencies} refuses), or an edge that would close a cycle
 * is refused at `field`, naming it, and nothing is written.
 * @returns the issues (empty when saved).
 */
export async function syncInferredDependencies(
  tx: Tx,
  evaluator: { id: string; workspaceId: string; name: string; target?: string },
  scoreReads: readonly string[],
  field = "sourceCode",
): Promise<InputIssue[]> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`deps:${evaluator.workspaceId}`}, 0))`;
  const declared = await tx.evaluatorDependency.findMany({
    where: { evaluatorId: evaluator.id, inferred: false },
    include: { dependsOn: { select: { name: true } } },
    orderBy: { position: "asc" },
  });
  const wanted = scoreReads.filter((name) => !declared.some((d) => d.dependsOn.name === name));
  const found = wanted.length
    ? await tx.evaluator.findMany({ where: { workspaceId: evaluator.workspaceId, archivedAt: null, liveName: { in: wanted } }, select: { id: true, name: true, target: true } })
    : [];
  const issues: InputIssue[] = [];
  const resolved: string[] = [];
  for (const name of wanted) {
    const target = found.find((e) => e.name === name);
    if (!target) {
      issues.push({
        path: field,
        message: `the code reads ctx.score("${name}"), but no live evaluator is named "${name}" in this workspace: create it first (kind "external" for an LLM judge or a person) or fix the name`,
      });
    } else if (target.id === evaluator.id) issues.push({ path: field, message: `the code reads ctx.score("${name}"): an evaluator cannot read its own scores` });
    else if (groupEdgeIssue(evaluator, target)) issues.push({ path: field, message: `the code reads ctx.score("${name}"): ${groupEdgeIssue(evaluator, target)}` });
    else resolved.push(target.id);
  }
  if (issues.length) return issues.map((i) => ({ ...i, message: `evaluator "${evaluator.name}": ${i.message}` }));
  const others = (await workspaceEdges(tx, evaluator.workspaceId)).filter((e) => e.evaluatorId !== evaluator.id);
  const mine = [...declared.map((d) => d.dependsOnId), ...resolved];
  const map: DependencyMap = toDependencyMap([...others, ...mine.map((dependsOnId) => ({ evaluatorId: evaluator.id, dependsOnId, gate: null }))]);
  const cycle = findCycle(new Map([[evaluator.id, map.get(evaluator.id) ?? []], ...map]));
  if (cycle) {
    const names = new Map((await tx.evaluator.findMany({ where: { id: { in: cycle } }, select: { id: true, name: true } })).map((e) => [e.id, e.name]));
    names.set(evaluator.id, evaluator.name);
    return [{ path: field, message: `evaluator "${evaluator.name}": reading these scores would make a cycle: ${cycle.map((id) => names.get(id) ?? id).join(" → ")}` }];
  }
  await tx.evaluatorDependency.deleteMany({ where: { evaluatorId: evaluator.id, inferred: true } });
  if (resolved.length) {
    await tx.evaluatorDependency.createMany({
      data: resolved.map((dependsOnId, i) => ({ evaluatorId: evaluator.id, dependsOnId, position: declared.length + i, inferred: true })),
    });
  }
  return [];
}
