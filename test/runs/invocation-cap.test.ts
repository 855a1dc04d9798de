import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness, waitFor } from "./helpers.js";

const SOURCE = 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="n", value=1)])\n';

describe("maxInvocationsPerHour", () => {
  let h: Awaited<ReturnType<typeof liveHarness>>;
  beforeAll(async () => {
    h = await liveHarness({ label: "cap" });
  });
  afterAll(() => h.close());

  it("records runs past the cap as skipped with the reason, counted in stats", async () => {
    const ws = await h.workspace("cap");
    await h.app.services.templates.createTemplate(ws.principal, { name: "Cap template", sourceCode: SOURCE });
    const created = await ws.gql(
      "mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id maxInvocationsPerHour } } }",
      { input: { name: "Capped", templateName: "Cap template", maxInvocationsPerHour: 2 } },
    );
    expect(created.errors).toBeUndefined();
    const evaluator = created.data!.createEvaluator.evaluator;
    expect(evaluator.maxInvocationsPerHour).toBe(2);
    const row = await h.app.prisma.evaluator.findFirstOrThrow({ where: { workspaceId: ws.principal.workspaceId, name: "Capped" } });
    const runs = () => h.app.prisma.run.count({ where: { evaluatorId: row.id } });
    // One span at a time (the cap is checked when a job starts; concurrent jobs may pass it together).
    for (let i = 0; i < 3; i++) {
      const sent = await ws.gql("mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued } }", {
        input: { spans: [{ traceId: "t", spanId: `s${i}`, name: "chat", input: [{ role: "user", content: "hi" }], output: "hello" }] },
      });
      expect(sent.data?.ingestSpans.evaluationsQueued).toBe(1);
      await waitFor(runs, i + 1);
    }
    const all = await h.app.prisma.run.findMany({ where: { evaluatorId: row.id }, orderBy: { createdAt: "asc" } });
    expect(all.map((r) => r.outcome)).toEqual(["ok", "ok", "skipped"]);
    expect(all[2]!.skipReason).toBe("maxInvocationsPerHour (2) reached: 2 runs in the last hour");
    const stats = await ws.gql("query($id: ID!) { node(id: $id) { ... on Evaluator { stats { skippedInvocationCap runsByOutcome { outcome count } } } } }", { id: evaluator.id });
    expect(stats.errors).toBeUndefined();
    expect(stats.data!.node.stats.skippedInvocationCap).toBe(1);
    expect(stats.data!.node.stats.runsByOutcome.find((o: { outcome: string }) => o.outcome === "skipped").count).toBe(1);

    const refused = await ws.gql("mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id } } }", {
      input: { name: "Bad cap", templateName: "Cap template", maxInvocationsPerHour: 0 },
    });
    expect(refused.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(refused.errors?.[0]?.extensions?.issues).toEqual([{ path: "maxInvocationsPerHour", message: "must be 1 or more" }]);
  });
});
