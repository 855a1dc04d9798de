// evaluateSpans: stored spans queued on the live path (what backfills call) — owed rows, the same
// jobs and batches, dependency order within a call, pairs with a run skipped, a tagged re-run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatSpan } from "../dependencies/helpers.js";
import { liveHarness, waitFor } from "./helpers.js";

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ queues: ["evaluate-target", "evaluation-barrier"], label: "evalspans" });
});
afterAll(() => h.close());

describe("evaluateSpans", () => {
  it("runs evaluators on stored spans in dependency order, once, and again under a tag after the runs were removed", async () => {
    const ws = await h.workspace("evalspans");
    const { templates, evaluators, spans, liveEvaluations } = h.app.services;
    const shape = await templates.createTemplateFromStarter(ws.principal, "json-shape");
    const keyword = await templates.createTemplateFromStarter(ws.principal, "keyword-check");
    // Disabled while the spans arrive: nothing is queued at ingest.
    const check = await evaluators.createEvaluator(ws.principal, { name: "JSON check", templateId: shape.template.id, enabled: false });
    const gated = await evaluators.createEvaluator(ws.principal, { name: "Gated", templateId: keyword.template.id, params: { required: ["sources"], mode: "any" }, enabled: false, dependencies: [{ evaluator: "JSON check", gate: { score: "is_json" } }] });
    const replies = ['{"sources": ["a"]}', "no json here"];
    const ids = (await spans.ingestSpans(ws.principal, Array.from({ length: 10 }, (_, i) => chatSpan(`es-${i}`, "s", replies[i % 2]!)))).spans.map((s) => s.id);
    await evaluators.updateEvaluator(ws.principal, check.id, { enabled: true });
    await evaluators.updateEvaluator(ws.principal, gated.id, { enabled: true });

    const first = await liveEvaluations.evaluateSpans(ws.workspace.id, { evaluatorIds: [gated.id, check.id], spanIds: [...ids, "00000000-0000-4000-8000-000000000000"] });
    expect(first).toEqual({ queued: 20, alreadyRun: 0, unknownSpans: 1 });
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } }), 20);
    const runs = await h.app.prisma.run.findMany({ where: { workspaceId: ws.workspace.id } });
    const checkRun = new Map(runs.filter((r) => r.evaluatorId === check.id).map((r) => [r.spanId, r]));
    for (const r of runs.filter((r) => r.evaluatorId === gated.id)) {
      expect(r.startedAt!.getTime()).toBeGreaterThanOrEqual(checkRun.get(r.spanId)!.finishedAt!.getTime());
      expect(r.outcome).toBe(ids.indexOf(r.spanId!) % 2 === 0 ? "ok" : "skipped");
    }
    expect(await h.app.prisma.owedEvaluation.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);

    expect(await liveEvaluations.evaluateSpans(ws.workspace.id, { evaluatorIds: [check.id], spanIds: ids })).toEqual({ queued: 0, alreadyRun: 10, unknownSpans: 0 });
    // A re-run: the caller removed the earlier runs (after keeping them as history) and passes a tag.
    await h.app.prisma.run.deleteMany({ where: { evaluatorId: check.id, spanId: { in: ids.slice(0, 3) } } });
    expect(await liveEvaluations.evaluateSpans(ws.workspace.id, { evaluatorIds: [check.id], spanIds: ids.slice(0, 3), tag: "b0f111-1" })).toEqual({ queued: 3, alreadyRun: 0, unknownSpans: 0 });
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: check.id } }), 10);
    await expect(liveEvaluations.evaluateSpans(ws.workspace.id, { evaluatorIds: [], spanIds: ids })).rejects.toThrow("evaluatorIds: must name at least one evaluator");
  }, 120_000);
});
