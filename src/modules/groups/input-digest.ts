import { createHash } from "node:crypto";

/**
 * What a trace or session run read of its span dependencies, kept on the run (`Run.inputRunIds`):
 * dependency evaluator id → `sha256:<hex>` of the dependency's runs on the group's spans, each
 * `<span row id>:<run id>`, sorted and joined with `,` (no runs: the digest of ""). A span run
 * keeps the run id it read; a group reads one run per span, up to thousands, so it keeps their
 * digest: a re-posted score or a re-run gives the span a new run id, so the digest changes and
 * the group is stale (runs/group-staleness.ts). Pure.
 * @param dependsOnIds - the declared dependencies, every one a key of the result.
 * @param runs - the dependencies' current runs on the group's spans.
 */
export function groupInputDigests(dependsOnIds: readonly string[], runs: readonly { evaluatorId: string; spanId: string; id: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dependsOnId of dependsOnIds) {
    const read = runs.filter((r) => r.evaluatorId === dependsOnId).map((r) => `${r.spanId}:${r.id}`).sort();
    out[dependsOnId] = `sha256:${createHash("sha256").update(read.join(",")).digest("hex")}`;
  }
  return out;
}
