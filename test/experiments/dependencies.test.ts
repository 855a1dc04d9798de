// No silent defaults in experiments (docs/evaluation.md § Experiments). The cookbook's "Combine an LLM
// judge with a code check" recipe runs verbatim over a dataset (its dependencies inferred from
// the code): its code dependency "PII leak" is added to the experiment (marked "dependency"),
// the external judge posts scores for the experiment's items through GraphQL submitScores and
// the dependent waits for them; with no wait, the runs that read no judge scores say so (per
// run and in the summary). Through GraphQL, the experiment-batch queue and the sandbox.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import type { Workers } from "../../src/worker.js";
import { graphqlClient } from "../helpers.js";
import { LLM_JUDGE_AND_CODE } from "../fixtures/cookbook-recipes.js";
import { createExperimentApp, importFile, principalOf, startExperimentWorker, waitFor, waitForExperiment } from "./helpers.js";

const ITEMS = [
  { id: "clean-1", input: [{ role: "user", content: "When does it ship?" }], output: "Your order ships on Monday.", expected_output: null, context: null, tool_calls: null, metadata: {} },
  { id: "leaky-2", input: [{ role: "user", content: "Who do I write to?" }], output: "Write to jane.doe@example.com for a refund.", expected_output: null, context: null, tool_calls: null, metadata: {} },
  { id: "clean-3", input: [{ role: "user", content: "Is it in stock?" }], output: "Yes, it is in stock.", expected_output: null, context: null, tool_calls: null, metadata: {} },
];

const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");

describe("experiment dependencies: added, waited for, never silently defaulted", () => {
  let app: App;
  let workers: Workers;
  let file: string;
  beforeAll(async () => {
    app = createExperimentApp().app;
    workers = await startExperimentWorker(app);
    file = join(mkdtempSync(join(tmpdir(), "i13-")), "items.jsonl");
    writeFileSync(file, ITEMS.map((i) => JSON.stringify(i)).join("\n") + "\n");
  });
  afterAll(async () => {
    await workers?.close();
    await app?.close();
  });

  async function setup(label: string) {
    const { principal, secret } = await principalOf(app, label);
    const client = graphqlClient(app);
    const gql = (q: string, v: Record<string, unknown> = {}) => client.request(q, v, secret);
    const report = await importFile(app, principal, `deps-${label}`, file);
    const { templates, evaluators } = app.services;
    await evaluators.createEvaluator(principal, { name: "Answer relevance", kind: "external" });
    const pii = await templates.createTemplateFromStarter(principal, "pii-leak");
    await evaluators.createEvaluator(principal, { name: "PII leak", templateId: pii.template.id });
    const recipe = await templates.createTemplate(principal, { name: "LLM judge + code", sourceCode: LLM_JUDGE_AND_CODE });
    const overall = await evaluators.createEvaluator(principal, { name: "Overall", templateId: recipe.template.id });
    const items = await app.prisma.datasetItem.findMany({ where: { datasetId: report.datasetId }, orderBy: { position: "asc" } });
    return { principal, gql, report, overall, items };
  }

  const CREATE = `mutation($input: CreateExperimentInput!) { createExperiment(input: $input) { experiment { id evaluators { source evaluator { name } } } } }`;
  const overallOf = async (experimentId: string, evaluatorId: string) =>
    Object.fromEntries(
      (await app.prisma.run.findMany({ where: { experimentId, evaluatorId }, include: { scores: true, datasetItem: true } })).map((r) => [
        r.datasetItem!.externalId!,
        { overall: r.scores[0]?.value, missing: r.missingDependencies },
      ]),
    );

  it("adds the code dependency, waits for the judge's posted scores per item and uses them", async () => {
    const { gql, report, overall, items } = await setup("wait");
    const created = await gql(CREATE, { input: { datasetId: gid("Dataset", report.datasetId), evaluatorIds: [gid("Evaluator", overall.id)], dependencyWaitSeconds: 3600 } });
    expect(created.errors).toBeUndefined();
    const experiment = created.data!.createExperiment.experiment;
    expect(experiment.evaluators.map((e: { source: string; evaluator: { name: string } }) => `${e.evaluator.name}:${e.source}`)).toEqual(["Overall:evaluator", "PII leak:dependency"]);
    const experimentId = Buffer.from(experiment.id, "base64").toString().split(":")[1]!;
    // PII leak runs on every item; Overall waits for the judge.
    await waitFor(async () => (await app.prisma.run.count({ where: { experimentId, evaluator: { name: "PII leak" } } })) === 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(await app.prisma.run.count({ where: { experimentId, evaluatorId: overall.id } })).toBe(0);

    const SUBMIT = `mutation($input: SubmitScoresInput!) { submitScores(input: $input) { replaced run { id } } }`;
    for (const [item, value] of [[items[0]!, 0.8], [items[1]!, 0.6], [items[2]!, 0.4]] as const) {
      const posted = await gql(SUBMIT, {
        input: { experimentId: experiment.id, datasetItemId: gid("DatasetItem", item.id), evaluator: "Answer relevance", scores: [{ name: "relevance", value }] },
      });
      expect(posted.errors).toBeUndefined();
    }
    const done = await waitForExperiment(app, experimentId, 60_000);
    expect(done.status).toBe("completed");
    const scores = await overallOf(experimentId, overall.id);
    expect(scores["clean-1"]!.overall).toBeCloseTo((0.8 * 3 + 1) / 4, 10);
    expect(scores["leaky-2"]!.overall).toBeCloseTo((0.6 * 3 + 0) / 4, 10); // the e-mail address counts: PII leak ran
    expect(scores["clean-3"]!.overall).toBeCloseTo((0.4 * 3 + 1) / 4, 10);
    expect(Object.values(scores).every((s) => s.missing.length === 0)).toBe(true);

    // Posting again replaces the judge's run and runs the dependent again on that item.
    const again = await gql(`mutation($input: SubmitScoresInput!) { submitScores(input: $input) { replaced rerun { name } } }`, {
      input: { experimentId: experiment.id, datasetItemId: gid("DatasetItem", items[0]!.id), evaluator: "Answer relevance", scores: [{ name: "relevance", value: 0.0 }] },
    });
    expect(again.data!.submitScores).toEqual({ replaced: true, rerun: [{ name: "Overall" }] });
    await waitFor(async () => ((await overallOf(experimentId, overall.id))["clean-1"]?.overall as number | undefined) === 0.25);
    // Both replaced runs are kept, with why: the judge's posted again, Overall's inputs changed.
    const kept = await app.prisma.runHistory.findMany({ where: { experimentId, datasetItemId: items[0]!.id }, select: { evaluatorId: true, reason: true } });
    expect(kept.map((r) => [r.evaluatorId === overall.id ? "Overall" : "judge", r.reason]).sort()).toEqual([["Overall", "inputs_changed"], ["judge", "scores_reposted"]]);
    await waitForExperiment(app, experimentId, 60_000);

    // A wrong shape says which fields to give.
    const wrong = await gql(SUBMIT, { input: { experimentId: experiment.id, evaluator: "Answer relevance", scores: [{ name: "relevance", value: 1 }] } });
    expect(wrong.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "spanId" }] });
  });

  it("with no wait, runs without the judge and says so per run and in the summary", async () => {
    const { gql, report, overall } = await setup("nowait");
    const created = await gql(CREATE, { input: { datasetId: gid("Dataset", report.datasetId), evaluatorIds: [gid("Evaluator", overall.id)], dependencyWaitSeconds: 0 } });
    expect(created.errors).toBeUndefined();
    const experimentId = Buffer.from(created.data!.createExperiment.experiment.id, "base64").toString().split(":")[1]!;
    await waitForExperiment(app, experimentId, 60_000);
    const scores = await overallOf(experimentId, overall.id);
    expect(scores["clean-1"]).toEqual({ overall: 0.25, missing: ["Answer relevance"] });
    expect(scores["leaky-2"]).toEqual({ overall: 0, missing: ["Answer relevance"] });
    const res = await gql(`query($id: ID!) { node(id: $id) { ... on Experiment {
      summary { evaluatorName name runsWithMissingDependencies } missingDependencies { evaluatorName dependency runs } } } }`, { id: gid("Experiment", experimentId) });
    expect(res.errors).toBeUndefined();
    expect(res.data!.node.missingDependencies).toEqual([{ evaluatorName: "Overall", dependency: "Answer relevance", runs: 3 }]);
    expect(res.data!.node.summary.find((s: { name: string }) => s.name === "overall").runsWithMissingDependencies).toBe(3);
    expect(res.data!.node.summary.find((s: { name: string }) => s.name === "pii_free").runsWithMissingDependencies).toBe(0);
  });
});
