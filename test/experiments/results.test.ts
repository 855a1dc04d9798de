import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeGlobalID } from "@pothos/plugin-relay";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import type { Principal } from "../../src/lib/principal.js";
import type { Workers } from "../../src/worker.js";
import { graphqlClient } from "../helpers.js";
import { FIXTURE, createExperimentApp, importFile, principalOf, recipeEvaluator, startExperimentWorker, waitFor, waitForExperiment, waitForSteady } from "./helpers.js";

/** Raises on replies that apologise: a readable user_error on some items, ok on the others. */
const FRAGILE = `def evaluate(ctx):
    reply = str(ctx.output or "")
    if reply.startswith("Sorry"):
        raise ValueError("cannot score an apology")
    return EvaluationResult(scores=[Score(name="long_reply", value=len(reply) > 200)])
`;

const gid = (type: string, id: string) => encodeGlobalID(type, id);

describe("experiment results: summaries, filters, failures, retry, cancel, comparison, live progress", () => {
  let app: App;
  let workers: Workers;
  let principal: Principal;
  let secret: string;
  let datasetId: string;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    app = createExperimentApp().app;
    workers = await startExperimentWorker(app);
    ({ principal, secret } = await principalOf(app, "results"));
    // 80 xstest items: 19 of them are "Sorry, …" refusals.
    const file = join(mkdtempSync(join(tmpdir(), "oodle-results-")), "items.jsonl");
    writeFileSync(file, readFileSync(FIXTURE, "utf8").split("\n").slice(0, 80).join("\n"));
    datasetId = (await importFile(app, principal, "xstest-80", file)).datasetId;
    gql = graphqlClient(app);
  });
  afterAll(async () => {
    await workers?.close();
    await app?.close();
  });

  const query = async (text: string, variables: Record<string, unknown> = {}) => {
    const response = await gql.request(text, variables, secret);
    expect(response.errors).toBeUndefined();
    return response.data!;
  };

  it("runs a template with its defaults, and compares two experiments whose settings differ", async () => {
    const { template } = await app.services.templates.createTemplateFromStarter(principal, "keyword-check", { name: "Keywords" });
    const policy = await app.services.evaluators.createEvaluator(principal, { name: "Policy", templateId: template.id, params: { forbidden: ["guarantee"] } });
    const refusal = await app.services.templates.createTemplateFromStarter(principal, "refusal");

    const create = `mutation ($input: CreateExperimentInput!) { createExperiment(input: $input) { experiment { id status evaluators { source evaluator { name archived } params } } } }`;
    const base = (await query(create, { input: { datasetId: gid("Dataset", datasetId), name: "base", evaluatorIds: [gid("Evaluator", policy.id)], templateIds: [gid("Template", refusal.template.id)] } })).createExperiment.experiment;
    expect(base.evaluators).toEqual([
      { source: "evaluator", evaluator: { name: "Policy", archived: false }, params: { required: [], forbidden: ["guarantee"], mode: "all", case_sensitive: false } },
      { source: "template", evaluator: { name: "Refusal", archived: true }, params: {} },
    ]);
    // Change the evaluator's values: the running experiment keeps the values it was created with.
    await app.services.evaluators.updateEvaluator(principal, policy.id, { params: { forbidden: ["guarantee", "sorry"] } });
    const candidate = (await query(create, { input: { datasetId: gid("Dataset", datasetId), name: "candidate", evaluatorIds: [gid("Evaluator", policy.id)], templateIds: [gid("Template", refusal.template.id)] } })).createExperiment.experiment;
    const baseId = base.id as string;
    const candidateId = candidate.id as string;
    await waitForExperiment(app, (await app.prisma.experiment.findFirstOrThrow({ where: { name: "base", workspaceId: principal.workspaceId } })).id);
    await waitForExperiment(app, (await app.prisma.experiment.findFirstOrThrow({ where: { name: "candidate", workspaceId: principal.workspaceId } })).id);

    const summaryQuery = `query ($id: ID!) { experiment(id: $id) { status progress { total done failed skipped pending fraction }
      summary { evaluatorName name dataType count mean passRate passed } failures { outcome count } } }`;
    const baseResult = (await query(summaryQuery, { id: baseId })).experiment;
    expect(baseResult.status).toBe("completed");
    expect(baseResult.progress).toEqual({ total: 80, done: 80, failed: 0, skipped: 0, pending: 0, fraction: 1 });
    expect(baseResult.failures).toEqual([]);
    const refusedRow = baseResult.summary.find((s: { name: string }) => s.name === "refused");
    expect(refusedRow).toMatchObject({ evaluatorName: "Refusal", dataType: "BOOLEAN", count: 80 });
    expect(refusedRow.passRate).toBeCloseTo(1 - refusedRow.mean, 9);

    // Items filtered by score: replies that refused (value 1 of a BOOLEAN) are the ones that fail "refused".
    const itemsQuery = `query ($id: ID!, $filter: ExperimentItemFilter) { experiment(id: $id) { items(filter: $filter, first: 100) {
      edges { node { item { externalId output } runs { outcome evaluator { name } scores { name value } } } } } } }`;
    const refusedItems = (await query(itemsQuery, { id: baseId, filter: { scoreName: "refused", minValue: 1 } })).experiment.items.edges;
    const failingRefused = (await query(itemsQuery, { id: baseId, filter: { scoreName: "refused", passed: false } })).experiment.items.edges;
    expect(refusedItems.length).toBe(refusedRow.count - refusedRow.passed);
    expect(failingRefused.map((e: any) => e.node.item.externalId)).toEqual(refusedItems.map((e: any) => e.node.item.externalId));
    expect(refusedItems.some((e: any) => String(e.node.item.output).startsWith("Sorry"))).toBe(true);
    expect(refusedItems[0].node.runs.map((r: any) => r.evaluator.name).sort()).toEqual(["Policy", "Refusal"]);

    // The comparison: "sorry" is now forbidden, so the apologies regress on keywords_ok; refusal is unchanged.
    const comparison = (await query(
      `query ($a: ID!, $b: ID!) { compareExperiments(baseId: $a, candidateId: $b, limit: 5) { changedItems changeCount
        scores { evaluatorName name meanDelta passRateDelta improved regressed changed base { passRate } candidate { passRate } }
        changes { externalId evaluatorName scoreName baseValue candidateValue direction } } }`,
      { a: baseId, b: candidateId },
    )).compareExperiments;
    const sorry = (await app.prisma.datasetItem.findMany({ where: { datasetId } })).filter((i) => /sorry/i.test(String(i.output)) && !/guarantee/i.test(String(i.output)));
    expect(sorry.length).toBeGreaterThan(0);
    const keywords = comparison.scores.find((s: any) => s.name === "keywords_ok");
    expect(keywords).toMatchObject({ evaluatorName: "Policy", improved: 0, regressed: sorry.length, changed: 0 });
    expect(keywords.passRateDelta).toBeCloseTo(-sorry.length / 80, 9);
    expect(comparison.scores.find((s: any) => s.name === "refused")).toMatchObject({ meanDelta: 0, passRateDelta: 0, improved: 0, regressed: 0 });
    expect(comparison.changedItems).toBe(sorry.length);
    expect(comparison.changeCount).toBe(sorry.length);
    expect(comparison.changes).toHaveLength(Math.min(5, sorry.length));
    expect(comparison.changes[0]).toMatchObject({ evaluatorName: "Policy", scoreName: "keywords_ok", baseValue: true, candidateValue: false, direction: "regressed" });
  });

  it("gives no pass rate for a numeric score off the 0–1 scale (a word count), and one for a 0–1 check", async () => {
    const budget = await app.services.templates.createTemplateFromStarter(principal, "length-budget", { name: "Length budget (scale)" });
    const create = `mutation ($input: CreateExperimentInput!) { createExperiment(input: $input) { experiment { id } } }`;
    const id = (await query(create, { input: { datasetId: gid("Dataset", datasetId), name: "scale", templateIds: [gid("Template", budget.template.id)] } })).createExperiment.experiment.id;
    await waitForExperiment(app, (await app.prisma.experiment.findFirstOrThrow({ where: { name: "scale", workspaceId: principal.workspaceId } })).id);
    const { summary } = (await query(`query ($id: ID!) { experiment(id: $id) { summary { name dataType count mean passRate passed } } }`, { id })).experiment;
    const words = summary.find((s: { name: string }) => s.name === "word_count");
    const within = summary.find((s: { name: string }) => s.name === "within_length");
    // One rule: no pass rate means no passed count either, and the items filter matches neither way.
    expect(words).toMatchObject({ dataType: "NUMERIC", count: 80, passRate: null, passed: null });
    expect(words.mean).toBeGreaterThan(1);
    expect(within).toMatchObject({ dataType: "BOOLEAN", count: 80 });
    expect(within.passRate).toBeCloseTo(within.mean, 9);
    expect(within.passed).toBe(Math.round(within.mean * 80));
    const items = async (filter: Record<string, unknown>) =>
      (await query(`query ($id: ID!, $filter: ExperimentItemFilter) { experiment(id: $id) { items(filter: $filter, first: 100) { edges { node { item { id } } } } } }`, { id, filter })).experiment.items.edges.length;
    expect(await items({ scoreName: "word_count", passed: true })).toBe(0);
    expect(await items({ scoreName: "word_count", passed: false })).toBe(0);
    expect(await items({ scoreName: "word_count", minValue: 0 })).toBe(80);
    expect(await items({ scoreName: "within_length", passed: true })).toBe(within.passed);
    expect(await items({ scoreName: "within_length", passed: false })).toBe(80 - within.passed);
    // Without a score name, passed: true is an item with any passing score: within_length's only.
    expect(await items({ passed: true })).toBe(within.passed);
  });

  it("reports failures by outcome, filters items by outcome, and retries failed items without duplicates", async () => {
    const fragile = await recipeEvaluator(app, principal, "Fragile", FRAGILE);
    const experiment = await app.services.experiments.createExperiment(principal, { datasetId, evaluatorIds: [fragile.evaluator.id], batchSize: 30 });
    await waitForExperiment(app, experiment.id);
    const apologies = (await app.prisma.datasetItem.findMany({ where: { datasetId } })).filter((i) => String(i.output).startsWith("Sorry")).length;
    expect(apologies).toBeGreaterThan(0);
    const read = async () =>
      (await query(`query ($id: ID!) { experiment(id: $id) { status retries progress { done failed pending } failures { evaluatorName outcome count }
        items(filter: { outcome: user_error }, first: 100) { edges { node { item { output } runs { outcome error { type message traceback } } } } } } }`, { id: gid("Experiment", experiment.id) })).experiment;
    const first = await read();
    expect(first.progress).toEqual({ done: 80 - apologies, failed: apologies, pending: 0 });
    expect(first.failures).toEqual([{ evaluatorName: "Fragile", outcome: "user_error", count: apologies }]);
    expect(first.items.edges).toHaveLength(apologies);
    expect(first.items.edges[0].node.runs[0].error).toMatchObject({ type: "ValueError", message: "cannot score an apology" });
    expect(first.items.edges[0].node.runs[0].error.traceback).toContain('raise ValueError("cannot score an apology")');

    const retried = (await query(`mutation ($id: ID!) { retryExperiment(input: { id: $id }) { experiment { status retries } } }`, { id: gid("Experiment", experiment.id) })).retryExperiment.experiment;
    expect(retried).toEqual({ status: "running", retries: 1 });
    await waitForExperiment(app, experiment.id);
    const second = await read();
    expect(second).toMatchObject({ status: "completed", retries: 1, progress: { done: 80 - apologies, failed: apologies, pending: 0 } });
    expect(await app.prisma.run.count({ where: { experimentId: experiment.id } })).toBe(80);
    // The failed runs that were retried stay readable as history.
    expect(await app.prisma.runHistory.count({ where: { experimentId: experiment.id, reason: "retried", outcome: "user_error" } })).toBe(apologies);
  });

  it("deletes a dataset with its experiments' runs, the replaced ones too", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "oodle-results-")), "items.jsonl");
    writeFileSync(file, readFileSync(FIXTURE, "utf8").split("\n").slice(0, 30).join("\n"));
    const own = (await importFile(app, principal, "xstest-30-deleted", file)).datasetId;
    const fragile = await recipeEvaluator(app, principal, "Fragile for deletion", FRAGILE);
    const experiment = await app.services.experiments.createExperiment(principal, { datasetId: own, evaluatorIds: [fragile.evaluator.id] });
    await waitForExperiment(app, experiment.id);
    await app.services.experiments.retryExperiment(principal, experiment.id);
    await waitForExperiment(app, experiment.id);
    const kept = await app.prisma.runHistory.count({ where: { experimentId: experiment.id } });
    expect(kept).toBe((await app.prisma.datasetItem.findMany({ where: { datasetId: own } })).filter((i) => String(i.output).startsWith("Sorry")).length);
    expect(kept).toBeGreaterThan(0);
    await app.services.datasets.deleteDataset(principal, own);
    expect(await app.prisma.run.count({ where: { experimentId: experiment.id } })).toBe(0);
    expect(await app.prisma.runHistory.count({ where: { experimentId: experiment.id } })).toBe(0);
  });

  it("cancels a running experiment and resumes it with retry", async () => {
    const slow = await recipeEvaluator(app, principal, "Slow", `import time\n\n\ndef evaluate(ctx):\n    time.sleep(0.02)\n    return EvaluationResult(scores=[Score(name="one", value=1)])\n`);
    const experiment = await app.services.experiments.createExperiment(principal, { datasetId, evaluatorIds: [slow.evaluator.id], batchSize: 10 });
    await waitFor(async () => (await app.prisma.run.count({ where: { experimentId: experiment.id } })) > 0, 60_000, 20);
    const cancelled = (await query(`mutation ($id: ID!) { cancelExperiment(input: { id: $id }) { experiment { status cancelledAt } } }`, { id: gid("Experiment", experiment.id) })).cancelExperiment.experiment;
    expect(cancelled.status).toBe("cancelled");
    // Running batches stop before their next evaluator; queued ones do nothing. Wound down once the
    // count holds still (however slow the machine), and it stays so.
    const atCancel = await waitForSteady(() => app.prisma.run.count({ where: { experimentId: experiment.id } }));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await app.prisma.run.count({ where: { experimentId: experiment.id } })).toBe(atCancel);
    expect(atCancel).toBeLessThan(80);
    expect((await app.services.experiments.progress(experiment)).pending).toBe(80 - atCancel);

    const { experiment: resumed, batches } = await app.services.experiments.retryExperiment(principal, experiment.id);
    expect(resumed.status).toBe("running");
    expect(batches).toBeGreaterThan(0);
    expect((await waitForExperiment(app, experiment.id)).status).toBe("completed");
    const runs = await app.prisma.run.findMany({ where: { experimentId: experiment.id }, select: { datasetItemId: true } });
    expect(runs).toHaveLength(80);
    expect(new Set(runs.map((r) => r.datasetItemId)).size).toBe(80);
  });

  it("streams progress as a subscription over SSE until the experiment completes", async () => {
    const { template } = await app.services.templates.createTemplateFromStarter(principal, "refusal", { name: "Refusal for SSE" });
    const experiment = await app.services.experiments.createExperiment(principal, { datasetId, templateIds: [template.id], batchSize: 10 });
    const response = await gql.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: `subscription ($id: ID!) { experimentProgress(id: $id) { status progress { done pending total fraction } } }`, variables: { id: gid("Experiment", experiment.id) } }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text(); // the stream ends with the "complete" event
    const events = text
      .split("\n\n")
      .filter((block) => block.includes("event: next"))
      .map((block) => JSON.parse(block.split("\n").find((l) => l.startsWith("data: "))!.slice(6)).data.experimentProgress);
    expect(text).toContain("event: complete");
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)).toEqual({ status: "completed", progress: { done: 80, pending: 0, total: 80, fraction: 1 } });
    const dones = events.map((e) => e.progress.done);
    expect([...dones].sort((a, b) => a - b)).toEqual(dones); // never goes backwards
  });

  it("refuses a template whose required setting has no default, another workspace's dataset, and an empty list", async () => {
    const { template } = await app.services.templates.createTemplate(principal, {
      name: "Needs a setting",
      sourceCode: "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n",
      params: [{ name: "expected", type: "string_list", required: true }],
    });
    await expect(app.services.experiments.createExperiment(principal, { datasetId, templateIds: [template.id] })).rejects.toMatchObject({
      issues: [{ path: "templateIds[0]", message: expect.stringContaining('"expected" is required and has no default') }],
    });
    await expect(app.services.experiments.createExperiment(principal, { datasetId })).rejects.toMatchObject({ issues: [{ path: "evaluatorIds" }] });
    const other = await principalOf(app, "other");
    await expect(app.services.experiments.createExperiment(other.principal, { datasetId, templateIds: [template.id] })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses two evaluators with the same name (an evaluator and a template run under its defaults), naming both, writing nothing", async () => {
    const { template } = await app.services.templates.createTemplateFromStarter(principal, "refusal", { name: "Same name" });
    const evaluator = await app.services.evaluators.createEvaluator(principal, { name: "Same name", templateId: template.id });
    const experiments = await app.prisma.experiment.count({ where: { workspaceId: principal.workspaceId } });
    await expect(app.services.experiments.createExperiment(principal, { datasetId, evaluatorIds: [evaluator.id], templateIds: [template.id] })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "templateIds[0]", message: 'evaluatorIds[0] and templateIds[0] are both named "Same name": give each evaluator of an experiment its own name (summaries and compareExperiments match evaluators by name)' }],
    });
    expect(await app.prisma.evaluator.count({ where: { workspaceId: principal.workspaceId, name: "Same name" } })).toBe(1);
    expect(await app.prisma.experiment.count({ where: { workspaceId: principal.workspaceId } })).toBe(experiments);
  });
});
