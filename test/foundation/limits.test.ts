import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { FIELD_WEIGHTS, REQUEST_LIMITS } from "../../src/graphql/limits.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

// Limits on what one request may do: depth, aliases, tokens and weighted cost answer
// LIMIT_EXCEEDED before anything runs; per-workspace rates answer HTTP 429 with Retry-After.
describe("request limits", () => {
  let app: App;
  let secret: string;
  let client: ReturnType<typeof graphqlClient>;
  beforeAll(async () => {
    app = createTestApp({ RATE_LIMIT_MUTATIONS_PER_MINUTE: "3", RATE_LIMIT_INGEST_PER_MINUTE: "2" });
    client = graphqlClient(app);
    ({ secret } = await createTestWorkspace(app, "limits"));
  });
  afterAll(() => app.close());

  it("refuses a query deeper than the limit", async () => {
    const deep = `{ viewer { workspace { ${"a: __typename ".repeat(1)} } } }`;
    expect((await client.request(deep, {}, secret)).errors).toBeUndefined();
    // evaluators → edges → node → dependents → dependents → … goes past 12 levels.
    let selection = "name";
    for (let i = 0; i < REQUEST_LIMITS.maxDepth; i++) selection = `dependents { ${selection} }`;
    const result = await client.request(`{ evaluators(first: 1) { edges { node { ${selection} } } } }`, {}, secret);
    expect(result.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    expect(result.errors?.[0]?.message).toMatch(/depth limit/i);
  });

  it("refuses too many aliases", async () => {
    const aliases = Array.from({ length: REQUEST_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: viewer { workspace { id } }`).join(" ");
    const result = await client.request(`{ ${aliases} }`, {}, secret);
    expect(result.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    expect(result.errors?.[0]?.message).toMatch(/alias/i);
  });

  it("refuses a document nested 20,000 deep without a masked error", async () => {
    const result = await client.request(`{ ${"viewer { ".repeat(20_000)}${"}".repeat(20_000)} }`, {}, secret);
    expect(result.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    expect(result.errors?.[0]?.message).toMatch(/nests 20001 levels deep/);
  });

  it("weights tryCode heavily: five in one request are refused before any runs", async () => {
    const calls = Array.from({ length: Math.floor(REQUEST_LIMITS.maxWeightedCost / FIELD_WEIGHTS.tryCode!) + 1 }, (_, i) => `t${i}: tryCode(input: {starterId: "exact-match", document: {output: "x"}}) { outcome }`).join(" ");
    const result = await client.request(`mutation { ${calls} }`, {}, secret);
    expect(result.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    expect(result.errors?.[0]?.message).toMatch(/weighted cost 125 is above 100/);
    expect(result.data).toBeUndefined();
  });

  // One status for every limit refusal (issue 35, point 5): 400, the request as sent will be
  // refused again (it must change); 429 only for a rate, with Retry-After (send it again later).
  // Before, the token limit (checked while parsing) answered 200 and the others 400, and a
  // service's count or size limit (1,001 spans) answered 200.
  it("answers HTTP 400 and LIMIT_EXCEEDED for every limit that is not a rate, the token limit included", async () => {
    const { secret: own } = await createTestWorkspace(app, "limits-status");
    let deep = "name";
    for (let i = 0; i < REQUEST_LIMITS.maxDepth; i++) deep = `dependents { ${deep} }`;
    const refusals: [string, string, Record<string, unknown>?][] = [
      ["tokens", `{ ${"viewer { workspace { id } } ".repeat(1000)} }`],
      ["nesting", `{ ${"viewer { ".repeat(100)}${"}".repeat(100)} }`],
      ["aliases", `{ ${Array.from({ length: REQUEST_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: viewer { workspace { id } }`).join(" ")} }`],
      ["depth", `{ evaluators(first: 1) { edges { node { ${deep} } } } }`],
      ["directives", `{ viewer ${"@include(if: true) ".repeat(REQUEST_LIMITS.maxDirectives + 1)}{ workspace { id } } }`],
      ["weighted cost", `mutation { ${Array.from({ length: 5 }, (_, i) => `t${i}: tryCode(input: {starterId: "exact-match", document: {output: "x"}}) { outcome }`).join(" ")} }`],
      ["read cost", "{ experiments(first: 100) { edges { node { items(first: 100) { edges { node { item { id input } } } } } } } }"],
      ["a service's limit", "mutation ($s: [JSON!]!) { ingestSpans(input: {spans: $s}) { evaluationsQueued } }", { s: Array.from({ length: 1001 }, (_, i) => ({ traceId: "t", spanId: `s${i}`, name: "n" })) }],
    ];
    for (const [label, query, variables] of refusals) {
      const result = await client.request(query, variables ?? {}, own);
      expect([label, result.status, result.errors?.[0]?.extensions?.code]).toEqual([label, 400, "LIMIT_EXCEEDED"]);
    }
  });

  it("rate-limits ingest per workspace with HTTP 429, LIMIT_EXCEEDED and Retry-After", async () => {
    const { secret: own } = await createTestWorkspace(app, "limits-rate");
    const ingest = () => client.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${own}` },
      body: JSON.stringify({ query: "mutation { ingestSpans(input: {spans: []}) { evaluationsQueued } }" }),
    });
    expect((await ingest()).status).toBe(200);
    expect((await ingest()).status).toBe(200);
    const refused = await ingest();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await refused.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]!.extensions.code).toBe("LIMIT_EXCEEDED");
    expect(body.errors[0]!.extensions.retryAfterSeconds).toBeGreaterThan(0);
    // Another workspace has its own budget; other mutations have theirs.
    const { secret: other } = await createTestWorkspace(app, "limits-rate-other");
    expect((await client.request("mutation { ingestSpans(input: {spans: []}) { evaluationsQueued } }", {}, other)).errors).toBeUndefined();
  });

  it("rate-limits other mutations per workspace, each alias counting once", async () => {
    const { secret: own } = await createTestWorkspace(app, "limits-mut");
    const two = 'mutation { a: createApiKey(input: {name: "a"}) { apiKey { id } } b: createApiKey(input: {name: "b"}) { apiKey { id } } }';
    expect((await client.request(two, {}, own)).errors).toBeUndefined();
    const result = await client.request(two, {}, own);
    expect(result.status).toBe(429);
    expect(result.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    // Refused whole: the third key was not created.
    const keys = await client.request("{ viewer { workspace { apiKeys(first: 50) { edges { node { name } } } } } }", {}, own);
    expect((keys.data as { viewer: { workspace: { apiKeys: { edges: unknown[] } } } }).viewer.workspace.apiKeys.edges).toHaveLength(3); // the first key and a, b
  });
});
