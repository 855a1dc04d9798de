// OwedEvaluation rows name their target (targetType, targetId) with no foreign key to it: the
// reconciler settles a row whose span is gone, and the database keeps targetType to TARGET_TYPES.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

describe("owed evaluations of targets", () => {
  let app: App;
  beforeAll(() => {
    app = createTestApp({ RECONCILE_GRACE_MS: "0" });
  });
  afterAll(() => app.close());

  it("settles an owed row whose span is gone, keeps one whose span is there, and refuses an unknown target type", async () => {
    const ws = await createTestWorkspace(app, "owed-targets");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const template = await app.services.templates.createTemplateFromStarter(principal, "keyword-check");
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Owed", templateId: template.template.id, params: { required: ["x"] }, enabled: false });
    const spanId = (await app.services.spans.ingestSpans(principal, [{ traceId: "owed-1", spanId: "s", name: "chat", kind: "chat", input: "a", output: "b" }])).spans[0]!.id;
    const gone = randomUUID();
    await app.prisma.owedEvaluation.createMany({
      data: [
        { targetType: "span", targetId: gone, evaluatorId: evaluator.id, workspaceId: ws.workspace.id, requeues: 5 },
        { targetType: "span", targetId: spanId, evaluatorId: evaluator.id, workspaceId: ws.workspace.id, requeues: 5 },
      ],
    });

    const report = await app.services.reconciler.reconcile({ workspaceId: ws.workspace.id });
    expect(report.settled).toBeGreaterThanOrEqual(1);
    const left = await app.prisma.owedEvaluation.findMany({ where: { workspaceId: ws.workspace.id }, select: { targetType: true, targetId: true } });
    expect(left).toEqual([{ targetType: "span", targetId: spanId }]);

    await expect(
      app.prisma.$executeRaw`INSERT INTO "OwedEvaluation" ("targetType", "targetId", "evaluatorId", "workspaceId") VALUES ('thread', ${randomUUID()}::uuid, ${evaluator.id}::uuid, ${ws.workspace.id}::uuid)`,
    ).rejects.toThrow(/OwedEvaluation_targetType_check/);
  });
});
