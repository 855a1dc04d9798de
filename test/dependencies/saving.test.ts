// Saving dependencies with an evaluator (docs/evaluation.md § Dependencies and gates): unknown evaluators and cycles are refused
// (naming the cycle), external evaluators have no template, and the graph reads back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dependencyHarness } from "./helpers.js";

let h: Awaited<ReturnType<typeof dependencyHarness>>;
beforeAll(async () => {
  h = await dependencyHarness({ startWorker: false });
});
afterAll(() => h.close());

const CREATE = `mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id name kind template { id }
  dependencies { dependsOn { name } gate { score at } } } } }`;
const UPDATE = `mutation($input: UpdateEvaluatorInput!) { updateEvaluator(input: $input) { evaluator { id dependencies { dependsOn { name } } } } }`;

describe("saving dependencies", () => {
  it("saves dependencies by name or id with gates, refuses unknown ones and cycles (naming them), and reads the graph", async () => {
    const ws = await h.workspace("save");
    const starter = await h.app.services.templates.createTemplateFromStarter(ws.principal, "json-shape");
    const templateName = starter.template.name;
    const judge = await ws.gql(CREATE, { input: { name: "Judge", kind: "external" } });
    expect(judge.errors).toBeUndefined();
    expect(judge.data!.createEvaluator.evaluator).toMatchObject({ kind: "external", template: null, dependencies: [] });
    const check = await ws.gql(CREATE, { input: { name: "Check", templateName } });
    const checkId = check.data!.createEvaluator.evaluator.id;
    const content = await ws.gql(CREATE, {
      input: { name: "Content", templateName, dependencies: [{ evaluator: checkId, gate: { score: "is_json" } }, { evaluator: "Judge", gate: { score: "relevance", at: 0.7 } }] },
    });
    expect(content.errors).toBeUndefined();
    const contentEv = content.data!.createEvaluator.evaluator;
    expect(contentEv.dependencies).toEqual([
      { dependsOn: { name: "Check" }, gate: { score: "is_json", at: null } },
      { dependsOn: { name: "Judge" }, gate: { score: "relevance", at: 0.7 } },
    ]);

    // A cycle: Check → Content → Check (refused, nothing saved).
    const cycle = await ws.gql(UPDATE, { input: { id: checkId, dependencies: [{ evaluator: "Content" }] } });
    expect(cycle.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "dependencies", message: "would make a cycle: Check → Content → Check" }] });
    const longer = await ws.gql(CREATE, { input: { name: "Summary", templateName, dependencies: [{ evaluator: "Content" }] } });
    expect(longer.errors).toBeUndefined();
    const cycle3 = await ws.gql(UPDATE, { input: { id: checkId, dependencies: [{ evaluator: "Summary" }] } });
    expect(cycle3.errors![0]!.extensions!.issues).toEqual([{ path: "dependencies", message: "would make a cycle: Check → Summary → Content → Check" }]);
    const self = await ws.gql(UPDATE, { input: { id: checkId, dependencies: [{ evaluator: "Check" }] } });
    expect(self.errors![0]!.extensions!.issues).toEqual([{ path: "dependencies[0].evaluator", message: "an evaluator cannot depend on itself" }]);

    // Unknown evaluators are refused by index; nothing is created.
    const unknown = await ws.gql(CREATE, { input: { name: "Orphan", templateName, dependencies: [{ evaluator: "Judge" }, { evaluator: "Nope" }] } });
    expect(unknown.errors![0]!.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "dependencies[1].evaluator", message: 'no live evaluator named or with id "Nope" in this workspace' }],
    });
    expect(await h.app.prisma.evaluator.count({ where: { workspaceId: ws.workspace.id, name: "Orphan" } })).toBe(0);

    // External evaluators have no template; code evaluators need one.
    const bad = await ws.gql(CREATE, { input: { name: "Bad judge", kind: "external", templateName } });
    expect(bad.errors![0]!.extensions!.issues).toEqual([{ path: "templateId", message: "an external evaluator has no template: its scores are posted with submitScores" }]);
    const noTemplate = await ws.gql(CREATE, { input: { name: "No template" } });
    expect(noTemplate.errors![0]!.extensions!.code).toBe("BAD_USER_INPUT");

    // The graph of Content: Check and Judge (layer 0), Content (1), Summary (2).
    const graph = await ws.gql(`query($id: ID!) { evaluator(id: $id) { dependents { name } dependencyGraph { nodes { layer evaluator { name } } edges { evaluator { name } dependsOn { name } gate { score } } } } }`, {
      id: contentEv.id,
    });
    expect(graph.errors).toBeUndefined();
    const g = graph.data!.evaluator;
    expect(g.dependents).toEqual([{ name: "Summary" }]);
    expect(g.dependencyGraph.nodes.map((n: { layer: number; evaluator: { name: string } }) => `${n.layer}:${n.evaluator.name}`).sort()).toEqual(["0:Check", "0:Judge", "1:Content", "2:Summary"]);
    expect(g.dependencyGraph.edges).toHaveLength(3);

    // Updating replaces the list; [] removes them.
    const cleared = await ws.gql(UPDATE, { input: { id: contentEv.id, dependencies: [] } });
    expect(cleared.data!.updateEvaluator.evaluator.dependencies).toEqual([]);
  });
});
