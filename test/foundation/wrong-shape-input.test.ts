// A request of the wrong shape (the settings page's JSON with `type` or
// `evaluatorId`) is BAD_USER_INPUT naming the field and the name to use, through the yoga server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

let app: App;
beforeAll(() => {
  app = createTestApp();
});
afterAll(() => app.close());

describe("wrong-shape requests", () => {
  it("says which field is unknown and which name to use", async () => {
    const ws = await createTestWorkspace(app, "input-errors");
    const client = graphqlClient(app);
    const template = await client.request(
      `mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id } } }`,
      { input: { name: "Keyword check", type: "code", sourceCode: "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n", params: [] } },
      ws.secret,
    );
    expect(template.status).toBe(400);
    expect(template.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "input.type", message: expect.stringMatching(/every template is code/) }] });
    const evaluator = await client.request(
      `mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id } } }`,
      { input: { name: "Support replies mention refunds", evaluatorId: "x", params: {} } },
      ws.secret,
    );
    expect(evaluator.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "input.evaluatorId", message: expect.stringMatching(/"templateId".*"templateName"/) }] });
    // The same mistake written in the query itself.
    const inline = await client.request(`mutation { createTemplate(input: {name: "x", type: "code", sourceCode: "y"}) { template { id } } }`, {}, ws.secret);
    expect(inline.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "type", message: expect.stringMatching(/every template is code/) }] });
  });
});
