// A gate (docs/evaluation.md § Dependencies and gates): a JSON-content evaluator gated on `is_json` of a JSON-check
// evaluator runs for valid replies and is recorded as skipped, with the reason, for invalid ones.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatSpan, dependencyHarness, storedIds, waitFor } from "./helpers.js";

const JSON_CONTENT = `from oodle_eval.v1 import text


def evaluate(ctx):
    data = text.extract_json(text.reply(ctx))
    return EvaluationResult(scores=[Score(name="has_sources", value=isinstance(data, dict) and bool(data.get("sources")), data_type="BOOLEAN")])
`;

let h: Awaited<ReturnType<typeof dependencyHarness>>;
beforeAll(async () => {
  h = await dependencyHarness();
});
afterAll(() => h.close());

describe("gate on a check", () => {
  it("runs the gated evaluator on valid JSON replies and skips it on the others", async () => {
    const ws = await h.workspace("gate");
    const { templates, evaluators, spans } = h.app.services;
    const shape = await templates.createTemplateFromStarter(ws.principal, "json-shape");
    const content = await templates.createTemplate(ws.principal, { name: "JSON content", sourceCode: JSON_CONTENT });
    const check = await evaluators.createEvaluator(ws.principal, { name: "JSON check", templateId: shape.template.id });
    const gated = await evaluators.createEvaluator(ws.principal, {
      name: "JSON content",
      templateId: content.template.id,
      dependencies: [{ evaluator: "JSON check", gate: { score: "is_json" } }],
    });
    const replies = ['{"answer": "42", "sources": ["doc-1"]}', "Sorry, I cannot answer that.", '{"answer": "7", "sources": []}', "{not json"];
    const ids = storedIds(await spans.ingestSpans(ws.principal, replies.map((r, i) => chatSpan("gate", `s${i}`, r))));
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: gated.id } }), 4);
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: gated.id }, include: { scores: true } });
    const byspan = (i: number) => runs.find((r) => r.spanId === ids[i])!;
    expect(byspan(0).outcome).toBe("ok");
    expect(byspan(0).scores.map((s) => [s.name, s.value])).toEqual([["has_sources", true]]);
    expect(byspan(2).outcome).toBe("ok");
    expect(byspan(2).scores.map((s) => [s.name, s.value])).toEqual([["has_sources", false]]);
    for (const i of [1, 3]) {
      expect(byspan(i).outcome).toBe("skipped");
      expect(byspan(i).skipReason).toBe('gate on "JSON check" score "is_json": did not pass (value false)');
      expect(byspan(i).scores).toEqual([]);
    }
    // The gated evaluator ran after the check, on every span.
    const checks = await h.app.prisma.run.findMany({ where: { evaluatorId: check.id } });
    for (const run of runs) {
      const dep = checks.find((c) => c.spanId === run.spanId)!;
      expect(run.startedAt!.getTime()).toBeGreaterThanOrEqual(dep.finishedAt!.getTime());
    }
    const stats = await ws.gql(`query($id: ID!) { evaluator(id: $id) { stats { runsByOutcome { outcome count } } } }`, { id: Buffer.from(`Evaluator:${gated.id}`).toString("base64") });
    expect(stats.data!.evaluator.stats.runsByOutcome.find((o: { outcome: string }) => o.outcome === "skipped").count).toBe(2);
  });
});
