import { encodeGlobalID } from "@pothos/plugin-relay";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import type { Principal } from "../../src/lib/principal.js";
import type { Workers } from "../../src/worker.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";
import { createExperimentApp, importFile, principalOf, recipeEvaluator, startExperimentWorker, waitForExperiment } from "./helpers.js";

// Reads cost what they do (issue 35, point 1). Before: the cost limit weighed root fields only
// and experiment items paged by 500, so 30 aliases × experiment { items(first: 500) } read 15,000
// items (13.9 MiB in 16.7 s, the API +471 MB), and reads had no budget (600 queries in 2.2 s).

const TWO_SCORES = 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="length", value=len(str(ctx.output))), Score(name="said_sorry", value=str(ctx.output).startswith("Sorry"))])\n';
/** The limits under test, as the README states them (src/graphql/query-cost.ts, limits.ts). */
const MAX_READ_COST = 20_000;
const DEFAULT_LIST_SIZE = 10;
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const ONE_SCORE = 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="ok", value=True)])\n';

/** One page of an experiment's items with their runs and scores, as a results page asks for it. */
const page = (first: number) => `items(first: ${first}) { edges { node { item { id input output expectedOutput } runs { outcome evaluator { name } scores { name value } } } } }`;

describe("the read cost of a request", () => {
  let app: App;
  let workers: Workers;
  let principal: Principal;
  let secret: string;
  let experimentId: string;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    app = createExperimentApp().app;
    workers = await startExperimentWorker(app);
    ({ principal, secret } = await principalOf(app, "read-cost"));
    const { datasetId } = await importFile(app, principal, "items"); // 500 items
    const a = await recipeEvaluator(app, principal, "Length", TWO_SCORES);
    const b = await recipeEvaluator(app, principal, "Ok", ONE_SCORE);
    const experiment = await app.services.experiments.createExperiment(principal, { datasetId, evaluatorIds: [a.evaluator.id, b.evaluator.id] });
    experimentId = encodeGlobalID("Experiment", experiment.id);
    await waitForExperiment(app, experiment.id, 600_000);
    gql = graphqlClient(app);
  });
  afterAll(async () => {
    await workers?.close();
    await app?.close();
  });

  it("refuses 30 aliases × experiment { items(first: 500) } before it runs, naming its cost and the limit", async () => {
    const amplified = `{ ${Array.from({ length: 30 }, (_, i) => `e${i}: experiment(id: "${experimentId}") { ${page(500)} }`).join(" ")} }`;
    const result = await gql.request(amplified, {}, secret);
    // Worked out by hand: per item, its node 1 + item 1 + 3 JSON payloads + runs 10 × (run 1 +
    // evaluator 1 + scores 10 × 1) = 125; per alias 1 + (1 + 500 × 125); 30 aliases.
    const perItem = 1 + 1 + 3 + DEFAULT_LIST_SIZE * (1 + 1 + DEFAULT_LIST_SIZE * 1);
    const cost = 30 * (1 + 1 + 500 * perItem);
    expect(cost).toBe(1_875_060);
    expect(result.status).toBe(400);
    expect(result.data).toBeUndefined(); // nothing ran: no partial answer, no per-alias errors
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]!.extensions).toMatchObject({ code: "LIMIT_EXCEEDED", cost, limit: MAX_READ_COST });
    expect(result.errors![0]!.message).toMatch(new RegExp(`^the request's read cost ${cost} is above ${MAX_READ_COST}: `));
    // Even with nothing under the items but their ids, 15,000 items are too many.
    const bare = `{ ${Array.from({ length: 30 }, (_, i) => `e${i}: experiment(id: "${experimentId}") { items(first: 500) { edges { node { item { id } } } } }`).join(" ")} }`;
    expect((await gql.request(bare, {}, secret)).errors?.[0]?.extensions).toMatchObject({ code: "LIMIT_EXCEEDED", cost: 30 * (1 + 1 + 500 * 2) });
  });

  it("answers a legitimate page of 100 items with their runs and scores", async () => {
    const result = await gql.request<{ experiment: { items: { edges: { node: { item: { id: string }; runs: { outcome: string; evaluator: { name: string }; scores: { name: string }[] }[] } }[] } } }>(
      `{ experiment(id: "${experimentId}") { ${page(100)} } }`,
      {},
      secret,
    );
    expect(result.errors).toBeUndefined();
    const edges = result.data!.experiment.items.edges;
    expect(edges).toHaveLength(100);
    for (const { node } of edges) {
      expect(node.runs.map((r) => [r.evaluator.name, r.outcome, r.scores.map((s) => s.name).sort()]).sort()).toEqual([
        ["Length", "ok", ["length", "said_sorry"]],
        ["Ok", "ok", ["ok"]],
      ]);
    }
  });

  it("weighs a connection in a connection by page size times its parent's, variables included", async () => {
    const nested = `query ($n: Int, $m: Int) { experiments(first: $n) { edges { node { ${"items(first: $m) { edges { node { item { id input } } } }"} } } } }`;
    // experiments: 1 + n × (node 1 + items (1 + m × (node 1 + item 1 + input 1))).
    const cost = (n: number, m: number) => 1 + n * (1 + 1 + m * 3);
    const refused = await gql.request(nested, { n: 100, m: 100 }, secret);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: "LIMIT_EXCEEDED", cost: cost(100, 100), limit: MAX_READ_COST });
    const answered = await gql.request(nested, { n: 10, m: 100 }, secret);
    expect(cost(10, 100)).toBeLessThan(MAX_READ_COST);
    expect(answered.errors).toBeUndefined();
    expect((answered.data as { experiments: { edges: { node: { items: { edges: unknown[] } } }[] } }).experiments.edges[0]!.node.items.edges).toHaveLength(100);
  });

  it("refuses first above 100 on experiment items, as on every connection", async () => {
    const result = await gql.request(`{ experiment(id: "${experimentId}") { items(first: 101) { edges { node { item { id } } } } } }`, {}, secret);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "first", message: expect.stringContaining("must be at most 100") }] });
  });

  it("refuses an answer larger than 8 MiB whole, with LIMIT_EXCEEDED", async () => {
    // Nine spans of 1,000,000 bytes of input each: a cost of 1 + 9 × 2, an answer of 9 MB.
    const spans = Array.from({ length: 9 }, (_, i) => ({ traceId: "big", spanId: `s${i}`, name: "big", input: "x".repeat(1_000_000) }));
    for (const batch of [spans.slice(0, 5), spans.slice(5)]) {
      const ingested = await gql.request("mutation ($s: [JSON!]!) { ingestSpans(input: {spans: $s}) { rejected { index } } }", { s: batch }, secret);
      expect(ingested.errors).toBeUndefined();
    }
    const result = await gql.request(`{ spans(first: 9, filter: {traceId: "big"}) { edges { node { spanId input } } } }`, {}, secret);
    expect(result.status).toBe(400);
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    expect(result.errors?.[0]?.message).toMatch(new RegExp(`^the answer would be 9\\d{6} bytes; at most ${MAX_RESPONSE_BYTES}: `));
    // Four of them fit.
    expect((await gql.request(`{ spans(first: 4, filter: {traceId: "big"}) { edges { node { spanId input } } } }`, {}, secret)).errors).toBeUndefined();
  });

  it("costs nothing for introspection (GraphiQL's schema query answers)", async () => {
    const result = await gql.request(`{ __schema { types { name fields { name args { name type { name kind ofType { name kind ofType { name kind } } } } } } } }`, {}, secret);
    expect(result.errors).toBeUndefined();
  });
});

describe("the read budget of a workspace", () => {
  let app: App;
  let gql: ReturnType<typeof graphqlClient>;
  beforeAll(() => {
    app = createTestApp({ RATE_LIMIT_READS_PER_MINUTE: "20" });
    gql = graphqlClient(app);
  });
  afterAll(() => app.close());

  const read = (query: string, key: string) =>
    gql.yoga.fetch("http://localhost/graphql", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ query }) });

  it("answers a read flood past the budget with HTTP 429, LIMIT_EXCEEDED and Retry-After; other workspaces keep theirs", async () => {
    const { secret } = await createTestWorkspace(app, "reads");
    for (let i = 0; i < 20; i++) expect((await read("{ viewer { workspace { id } } }", secret)).status).toBe(200);
    const refused = await read("{ viewer { workspace { id } } }", secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await refused.json()) as { data?: unknown; errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]!.extensions).toMatchObject({ code: "LIMIT_EXCEEDED", retryAfterSeconds: expect.any(Number) });
    expect(body.errors[0]!.message).toMatch(/^rate limit: at most 20 read points \(1 per started 1,000 of a read's cost\) per minute per workspace; retry in \d+ s$/);
    // Mutations have their own budget.
    expect((await gql.request('mutation { createApiKey(input: {name: "still"}) { apiKey { id } } }', {}, secret)).errors).toBeUndefined();
    const { secret: other } = await createTestWorkspace(app, "reads-other");
    expect((await read("{ viewer { workspace { id } } }", other)).status).toBe(200);
  });

  it("takes a costly read's points by its cost: 1 per started 1,000", async () => {
    const { secret } = await createTestWorkspace(app, "reads-cost");
    // spans(first: 100) { edges { node { input output attributes runs { id } } } }: 1 + 100 × (1 + 3 + 10 × 1) = 1,401 → 2 points.
    const costly = "{ spans(first: 100) { edges { node { input output attributes runs { id } } } } }";
    for (let i = 0; i < 10; i++) expect((await read(costly, secret)).status).toBe(200);
    expect((await read("{ viewer { workspace { id } } }", secret)).status).toBe(429);
  });
});
