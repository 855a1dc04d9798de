import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

// Inputs that cannot be stored as sent are refused naming the field, never stored changed and
// never a masked 500; malformed ids are BAD_USER_INPUT with a code and without an echo.
describe("bad input", () => {
  let app: App;
  let secret: string;
  let client: ReturnType<typeof graphqlClient>;
  const gql = (query: string, variables: Record<string, unknown> = {}) => client.request(query, variables, secret);
  const INGEST = "mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { spans { spanId } rejected { index issues { path message } } } }";
  beforeAll(async () => {
    app = createTestApp();
    client = graphqlClient(app);
    ({ secret } = await createTestWorkspace(app, "input"));
  });
  afterAll(() => app.close());

  it("refuses U+0000, lone surrogates and 1e400 in variables, naming the path", async () => {
    const nul = await gql('mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } } }', { input: { name: "a\u0000b" } });
    expect(nul.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(nul.errors?.[0]?.extensions?.issues).toEqual([{ path: "variables.input.name", message: "must not contain the character U+0000 (PostgreSQL cannot store it)" }]);
    const surrogate = await gql('mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } } }', { input: { name: "a\uD800" } });
    expect(surrogate.errors?.[0]?.extensions?.issues?.[0]?.path).toBe("variables.input.name");
    expect(surrogate.errors?.[0]?.extensions?.issues?.[0]?.message).toMatch(/lone UTF-16 surrogate/);
    // 1e400 as JSON text parses to Infinity.
    const response = await client.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: '{"query":"mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id } } }","variables":{"input":{"name":"x","templateName":"none","samplingRate":1e400}}}',
    });
    const body = (await response.json()) as { errors: { extensions: { code: string; issues: { path: string }[] } }[] };
    expect(body.errors[0]!.extensions.code).toBe("BAD_USER_INPUT");
    expect(body.errors[0]!.extensions.issues[0]!.path).toBe("variables.input.samplingRate");
    const keys = await app.prisma.apiKey.count({ where: { name: { in: ["a\uFFFDb", "a\uFFFD"] } } });
    expect(keys).toBe(0);
  });

  it("refuses JSON nested 100,000 deep with BAD_USER_INPUT, not a masked error", async () => {
    // Built as text: JSON.stringify itself cannot go that deep.
    const deep = `${"[".repeat(100_000)}1${"]".repeat(100_000)}`;
    const query = JSON.stringify("mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } } }");
    const response = await client.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: `{"query":${query},"variables":{"input":{"name":${deep}}}}`,
    });
    const result = (await response.json()) as { errors: { extensions: { code: string; issues: { message: string }[] } }[] };
    expect(result.errors[0]!.extensions.code).toBe("BAD_USER_INPUT");
    expect(result.errors[0]!.extensions.issues[0]!.message).toMatch(/nested more than 64 levels/);
  });

  it("rejects a span with a lone surrogate in traceId by index, stores and keeps the rest", async () => {
    const deep = `${'{"a":'.repeat(100_000)}"x"${"}".repeat(100_000)}`;
    const spans = [
      { traceId: "t1", spanId: "ok-1", name: "chat", output: "fine" },
      { traceId: "t\uDC00", spanId: "bad-1", name: "chat", output: "x" },
      { traceId: "t1", spanId: "bad-2", name: "chat", output: "x", attributes: { big: 1e400 } },
      { traceId: "t1", spanId: "bad-3", name: "chat", output: "x", metadata: { deep: "DEEP" } },
      { traceId: "t1", spanId: "ok-2", name: "chat", output: "fine" },
    ];
    // 1e400 survives only in JSON text: send the body by hand.
    const text = JSON.stringify({ query: INGEST, variables: { input: { spans } } }).replace('"big":null', '"big":1e400').replace('"DEEP"', deep);
    const response = await client.yoga.fetch("http://localhost/graphql", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` }, body: text });
    const body = (await response.json()) as { data: { ingestSpans: { spans: { spanId: string }[]; rejected: { index: number; issues: { path: string; message: string }[] }[] } } };
    expect(body.data.ingestSpans.spans.map((s) => s.spanId)).toEqual(["ok-1", "ok-2"]);
    expect(body.data.ingestSpans.rejected.map((r) => [r.index, r.issues[0]!.path])).toEqual([[1, "traceId"], [2, "attributes.big"], [3, expect.stringMatching(/^metadata\.deep/)]]);
  });

  it("answers a malformed global id with BAD_USER_INPUT and a code, without echoing it", async () => {
    const result = await gql('query { node(id: "<script>not-an-id</script>") { id } }');
    expect(result.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(result.errors?.[0]?.message).not.toContain("<script>");
  });
});

describe("ids of another workspace", () => {
  let app: App;
  let client: ReturnType<typeof graphqlClient>;
  beforeAll(() => {
    app = createTestApp();
    client = graphqlClient(app);
  });
  afterAll(() => app.close());

  it("node(id) answers NOT_FOUND with a code and nodes(ids) answers per id, never a masked error", async () => {
    const a = await createTestWorkspace(app, "tenancy-a");
    const b = await createTestWorkspace(app, "tenancy-b");
    const own = await client.request("{ viewer { workspace { id } apiKey { id } } }", {}, b.secret);
    const theirs = await client.request("{ viewer { apiKey { id } } }", {}, a.secret);
    const foreign = theirs.data!.viewer.apiKey.id as string;
    const one = await client.request("query($id: ID!) { node(id: $id) { id } }", { id: foreign }, b.secret);
    expect(one.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(one.data?.node).toBeNull();
    const many = await client.request("query($ids: [ID!]!) { nodes(ids: $ids) { id } }", { ids: [own.data!.viewer.apiKey.id, foreign] }, b.secret);
    // Answered per id: the own key loads, the foreign one is null with NOT_FOUND at its index.
    expect(many.data?.nodes).toEqual([{ id: own.data!.viewer.apiKey.id }, null]);
    expect(many.errors?.map((e: any) => [e.path, e.extensions?.code])).toEqual([[["nodes", 1], "NOT_FOUND"]]);
    expect(JSON.stringify(many)).not.toContain("tenancy-a");
  });
});
