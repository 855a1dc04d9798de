import type { Span } from "../../generated/prisma/client.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { groupGatePasses } from "../dependencies/graph.js";
import { documentScores, spansInputs, type DeclaredDependency, type SpanInputs } from "../dependencies/input-runs.js";
import { groupSpanKey, type SpanScores } from "../groups/documents.js";
import { groupInputDigests } from "../groups/input-digest.js";

/** What a trace or session evaluator reads of its span dependencies on one group. */
export interface GroupDependencyReads {
  /** Per span (groupSpanKey) → dependency name → score name → value; a span with no scored run has no entry. */
  scores: SpanScores;
  /** Dependencies with no score on any span of the group (Run.missingDependencies). */
  missing: string[];
  /** The run's `inputRunIds`: per dependency, the digest of the runs read (groups/input-digest.ts). */
  digests: Record<string, string>;
  /** The reason of the first gate that does not pass (docs/evaluation.md § Targets), or null. */
  gateFailure: string | null;
}

/**
 * Reads, for every group at once (one query), the current runs of the span evaluators a trace or
 * session evaluator depends on, on each of the group's spans: the scores its document carries, the
 * dependencies it lacks, the digest it records, and its gates' decision. The live group processor
 * and a backfill read them the same way, so both give the same run for the same group.
 * @param declared - the evaluator's declared dependencies (with gates).
 * @param groups - each group's spans by trace.
 */
export async function readGroupDependencies<K>(prisma: PrismaClient, declared: readonly DeclaredDependency[], groups: ReadonlyMap<K, readonly (readonly Span[])[]>): Promise<Map<K, GroupDependencyReads>> {
  const ids = [...groups.values()].flatMap((traces) => traces.flat().map((s) => s.id));
  const inputs = await spansInputs(prisma, ids, declared);
  const dependsOn = declared.map((d) => d.dependsOnId);
  const out = new Map<K, GroupDependencyReads>();
  for (const [key, traces] of groups) {
    const spans = traces.flat();
    const scores: Record<string, Record<string, Record<string, unknown>>> = {};
    const seen = new Set<string>();
    const read: { evaluatorId: string; spanId: string; id: string }[] = [];
    for (const span of spans) {
      const onSpan: SpanInputs = inputs.get(span.id) ?? new Map();
      for (const run of onSpan.values()) read.push({ evaluatorId: run.evaluatorId, spanId: span.id, id: run.id });
      // A dependency's run without scores (skipped, failed) puts no entry on the span, as no run does.
      const perSpan = Object.fromEntries(Object.entries(documentScores(declared, onSpan)).filter(([, s]) => Object.keys(s).length > 0));
      if (Object.keys(perSpan).length === 0) continue;
      scores[groupSpanKey(span)] = perSpan;
      for (const name of Object.keys(perSpan)) seen.add(name);
    }
    out.set(key, { scores, missing: declared.filter((d) => !seen.has(d.name)).map((d) => d.name), digests: groupInputDigests(dependsOn, read), gateFailure: gateFailureOf(declared, spans, inputs) });
  }
  return out;
}

/** The first gated dependency whose gate does not pass on the group's spans, as a skip reason; null when all pass. */
function gateFailureOf(declared: readonly DeclaredDependency[], spans: readonly Span[], inputs: ReadonlyMap<string, SpanInputs>): string | null {
  for (const d of declared) {
    if (!d.gate) continue;
    const runs = spans.flatMap((span) => {
      const run = inputs.get(span.id)?.get(d.dependsOnId);
      return run ? [{ spanName: span.name, spanId: span.spanId, scores: run.scores }] : [];
    });
    // Saving refuses a group gate without `spans` (dependencies/store.ts), so the fallback is never taken; "all" is the stricter.
    const decision = groupGatePasses(runs, { ...d.gate, spans: d.gate.spans ?? "all" }, d.name);
    if (!decision.passed) return decision.reason!;
  }
  return null;
}
