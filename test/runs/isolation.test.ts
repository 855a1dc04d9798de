// An evaluator that asks for strict isolation runs each item in a fresh forked process
// (docs/sandbox.md § Isolation); the default runs in a warm runner. Inside the
// sandbox's PID namespace the warm runner is a child of bwrap's init (parent pid 1), while a strict
// item runs in a child of the runner's zygote (parent pid > 1): the run's score tells which.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness, waitFor } from "./helpers.js";

const PARENT_PID = `import os


def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="parent_pid", value=os.getppid())])
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness();
});
afterAll(() => h.close());

describe("evaluator isolation", () => {
  it("runs a strict evaluator's items in forked children and a default one in a warm runner", async () => {
    const ws = await h.workspace("isolation");
    const { template } = await h.app.services.templates.createTemplate(ws.principal, { name: "Parent pid", sourceCode: PARENT_PID });
    const warm = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Warm", templateId: template.id });
    const strict = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Strict", templateId: template.id, isolation: "strict" });
    expect([warm.isolation, strict.isolation]).toEqual(["warm", "strict"]);

    await h.app.services.spans.ingestSpans(ws.principal, [{ traceId: "t1", spanId: "s1", name: "chat", kind: "chat", input: "hi", output: "hello" }]);
    await waitFor(() => h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } }), 2);
    const scores = await h.app.prisma.score.findMany({ where: { workspaceId: ws.workspace.id }, include: { run: { include: { evaluator: true } } } });
    const parentOf = (name: string) => scores.find((s) => s.run.evaluator.name === name)!.value as number;
    expect(parentOf("Warm")).toBe(1);
    expect(parentOf("Strict")).toBeGreaterThan(1);
  });

  it("refuses an unknown isolation mode, naming the field", async () => {
    const ws = await h.workspace("isolation-bad");
    const res = await ws.gql(`mutation { createTemplateFromStarter(input: {starterId: "refusal"}) { template { id } } }`);
    const templateId = res.data?.createTemplateFromStarter.template.id;
    const bad = await ws.gql(`mutation($t: ID!) { createEvaluator(input: {name: "x", templateId: $t, isolation: paranoid}) { evaluator { id } } }`, { t: templateId });
    expect(bad.errors?.[0]?.extensions?.issues).toEqual([{ path: "isolation", message: "must be one of strict, warm" }]);
    // In the variables, the path names the variable; a quoted literal says how to write an enum value.
    const variable = await ws.gql(`mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id } } }`, { input: { name: "x", templateId, isolation: "paranoid" } });
    expect(variable.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "input.isolation", message: "must be one of strict, warm" }] });
    const quoted = await ws.gql(`mutation($t: ID!) { createEvaluator(input: {name: "x", templateId: $t, isolation: "strict"}) { evaluator { id } } }`, { t: templateId });
    expect(quoted.errors?.[0]?.extensions?.issues).toEqual([{ path: "isolation", message: "must be one of strict, warm (an enum value is written without quotes in a query: isolation: strict)" }]);
  });
});
