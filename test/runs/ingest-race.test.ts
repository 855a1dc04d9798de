// Concurrent ingests of the same spans (spans/ingest-write.ts): the ingest is ONE statement per
// batch, and a span that another ingest stored after the statement's snapshot is written again as
// sent again. Sent by 4 clients at once, 60 spans are stored once, each answered `created` once,
// owe one evaluation per evaluator once, are counted as matched once in the sharded stats, and
// each is scored once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness, waitFor } from "./helpers.js";

const LENGTH = `def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="length", value=len(ctx.turns[-1]["content"]))])
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "race" });
});
afterAll(() => h.close());

describe("concurrent ingests of the same spans", () => {
  it("store, owe, count and score each span once", async () => {
    const ws = await h.workspace();
    const { template } = await h.app.services.templates.createTemplate(ws.principal, { name: "Length", sourceCode: LENGTH });
    const a = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "A", templateId: template.id });
    const b = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "B", templateId: template.id, spanNamePattern: "never-*" });
    const spans = Array.from({ length: 60 }, (_, i) => ({ traceId: `race-${i % 7}`, spanId: `s${i}`, name: "chat", input: [{ role: "user", content: "hi" }], output: "x".repeat(i) }));
    const results = await Promise.all(Array.from({ length: 4 }, () => h.app.services.spans.ingestSpans(ws.principal, spans)));

    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(60);
    for (let i = 0; i < 60; i++) {
      expect(results.filter((r) => r.spans[i]!.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.spans[i]!.id)).size).toBe(1);
    }
    expect(results.reduce((n, r) => n + r.evaluationsQueued, 0)).toBe(60);
    const stats = await h.app.services.runs.evaluatorStats(ws.workspace.id, a.id);
    expect(stats).toMatchObject({ spansMatched: 60, skippedName: 0 });
    expect(await h.app.services.runs.evaluatorStats(ws.workspace.id, b.id)).toMatchObject({ spansMatched: 0, skippedName: 60 });
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: a.id } }), 60);
    await new Promise((r) => setTimeout(r, 500));
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: a.id }, include: { scores: true, span: { select: { spanId: true } } } });
    expect(runs).toHaveLength(60);
    for (const run of runs) expect(run.scores[0]!.value).toBe(Number(run.span!.spanId.slice(1)));
    expect(await h.app.prisma.owedEvaluation.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
    // Sent again once scored: nothing queued, and the backlog is empty with no age (not the request's time).
    const again = await h.app.services.spans.ingestSpans(ws.principal, spans);
    expect([again.evaluationsQueued, again.backlog.queued, again.backlog.oldestAgeSeconds]).toEqual([0, 0, 0]);
  }, 120_000);
});
