// Issue 27: an experiment whose evaluator depends on an external evaluator's scores does not wait
// silently: per item and per evaluator, what it waits for (directly or through a dependency) and
// until when, in GraphQL (Experiment.progress, Experiment.waits) and the progress subscription;
// an experiment with a short wait of its own runs without the scores once it ends, and says so.
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import type { Workers } from "../../src/worker.js";
import { graphqlClient } from "../helpers.js";
import { createExperimentApp, principalOf, startExperimentWorker, waitFor, waitForExperiment } from "./helpers.js";

const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
const CHECK = `def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="checked", value=True)])\n`;
const PROGRESS = `progress { total pending waiting waitingUntil waits { evaluatorName items waitingFor { name } reason expiresAt } }`;

describe("what an experiment waits for", () => {
  let app: App;
  let workers: Workers;
  beforeAll(async () => {
    app = createExperimentApp().app;
    workers = await startExperimentWorker(app);
  });
  afterAll(async () => {
    await workers?.close();
    await app?.close();
  });

  /** "Label check" depends on the external "Human label"; "Summary" on "Label check". Three items. */
  async function setup(label: string, dependencyWaitSeconds: number) {
    const { principal, secret } = await principalOf(app, label);
    const client = graphqlClient(app);
    const gql = (q: string, v: Record<string, unknown> = {}) => client.request(q, v, secret);
    const lines = ["a", "b", "c"].map((id) => JSON.stringify({ id, input: "q", output: "a" })).join("\n") + "\n";
    const report = await app.services.datasets.importItems(principal, { name: `waits-${label}` }, Readable.from([lines]));
    await app.services.evaluators.createEvaluator(principal, { name: "Human label", kind: "external" });
    const { template } = await app.services.templates.createTemplate(principal, { name: "Check", sourceCode: CHECK });
    await app.services.evaluators.createEvaluator(principal, { name: "Label check", templateId: template.id, dependencies: [{ evaluator: "Human label" }] });
    const summary = await app.services.evaluators.createEvaluator(principal, { name: "Summary", templateId: template.id, dependencies: [{ evaluator: "Label check" }] });
    const experiment = await app.services.experiments.createExperiment(principal, { datasetId: report.datasetId, evaluatorIds: [summary.id], dependencyWaitSeconds });
    const items = await app.prisma.datasetItem.findMany({ where: { datasetId: report.datasetId }, orderBy: { position: "asc" } });
    return { gql, client, secret, experiment, items };
  }

  it("says per item and per evaluator what it waits for and until when, and the subscription sends it", { timeout: 300_000 }, async () => {
    const { gql, client, secret, experiment, items } = await setup("long", 3600);
    const until = new Date(experiment.createdAt.getTime() + 3600_000).toISOString();
    const direct = `waits for the scores of external evaluator "Human label" to be posted for the item (submitScores); at ${until} it runs without them`;
    const through = `waits for the scores of external evaluator "Human label" to be posted for the item (submitScores), through "Label check"; at ${until} it runs without them`;
    const read = async () => (await gql(`query($id: ID!) { experiment(id: $id) { status ${PROGRESS} waits(first: 10) { edges { node { externalId evaluatorName waitingFor { name } reason since expiresAt } } } } }`, { id: gid("Experiment", experiment.id) })).data!.experiment;
    const first = await read();
    expect(first.progress).toEqual({
      total: 3,
      pending: 3,
      waiting: 3,
      waitingUntil: until,
      waits: [
        { evaluatorName: "Summary", items: 3, waitingFor: [{ name: "Human label" }], reason: through, expiresAt: until },
        { evaluatorName: "Label check", items: 3, waitingFor: [{ name: "Human label" }], reason: direct, expiresAt: until },
      ],
    });
    expect(first.waits.edges.map((e: any) => `${e.node.externalId}/${e.node.evaluatorName}`)).toEqual(["a/Summary", "a/Label check", "b/Summary", "b/Label check", "c/Summary", "c/Label check"]);
    expect(first.waits.edges[1].node).toEqual({ externalId: "a", evaluatorName: "Label check", waitingFor: [{ name: "Human label" }], reason: direct, since: experiment.createdAt.toISOString(), expiresAt: until });

    // Scores posted for item a: its evaluators run, the two others still wait.
    const posted = await gql(`mutation($input: SubmitScoresInput!) { submitScores(input: $input) { run { id } } }`, {
      input: { experimentId: gid("Experiment", experiment.id), datasetItemId: gid("DatasetItem", items[0]!.id), evaluator: "Human label", scores: [{ name: "label", value: 1 }] },
    });
    expect(posted.errors).toBeUndefined();
    await waitFor(async () => (await app.prisma.run.count({ where: { experimentId: experiment.id, datasetItemId: items[0]!.id } })) === 3);
    const after = await read();
    expect([after.progress.pending, after.progress.waiting, after.progress.waits.map((w: any) => w.items)]).toEqual([2, 2, [2, 2]]);
    expect(after.waits.edges.map((e: any) => e.node.externalId)).toEqual(["b", "b", "c", "c"]);

    // The progress subscription's first event carries the waits too.
    const response = await client.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: `subscription($id: ID!) { experimentProgress(id: $id) { status ${PROGRESS} } }`, variables: { id: gid("Experiment", experiment.id) } }),
    });
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("event: next")) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const data = JSON.parse(text.split("\n").find((l) => l.startsWith("data: "))!.slice(6)).data.experimentProgress;
    expect(data.progress).toEqual(after.progress);
  });

  it("an experiment's own short wait ends: the dependents run without the scores, named as missing, and nothing waits", { timeout: 300_000 }, async () => {
    const { gql, experiment } = await setup("short", 15);
    const waiting = (await gql(`query($id: ID!) { experiment(id: $id) { ${PROGRESS} } }`, { id: gid("Experiment", experiment.id) })).data!.experiment.progress;
    // Read within the 15 s (a loaded machine may be past it; then nothing waits any more, as below).
    if (Date.now() < experiment.createdAt.getTime() + 15_000) expect(waiting.waiting).toBeGreaterThan(0);
    const done = await waitForExperiment(app, experiment.id, 180_000);
    expect(done.status).toBe("completed");
    const final = (await gql(`query($id: ID!) { experiment(id: $id) { ${PROGRESS} missingDependencies { evaluatorName dependency runs } } }`, { id: gid("Experiment", experiment.id) })).data!.experiment;
    expect(final.progress).toMatchObject({ pending: 0, waiting: 0, waitingUntil: null, waits: [] });
    expect(final.missingDependencies).toEqual([{ evaluatorName: "Label check", dependency: "Human label", runs: 3 }]);
  });
});
