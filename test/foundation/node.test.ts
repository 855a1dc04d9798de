import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { MAX_NODES_IDS } from "../../src/graphql/node.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

// node(id) and nodes(ids) answer per id: another workspace's id or a malformed one is null with
// an error at that position (NOT_FOUND / BAD_USER_INPUT), the others load, nothing is echoed.
describe("node and nodes", () => {
  let app: App;
  let client: ReturnType<typeof graphqlClient>;
  let a: Awaited<ReturnType<typeof createTestWorkspace>>;
  let b: Awaited<ReturnType<typeof createTestWorkspace>>;
  const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
  beforeAll(async () => {
    app = createTestApp();
    client = graphqlClient(app);
    a = await createTestWorkspace(app, "node-a");
    b = await createTestWorkspace(app, "node-b");
  });
  afterAll(() => app.close());

  const NODES = "query($ids: [ID!]!) { nodes(ids: $ids) { id __typename ... on ApiKey { name } } }";

  it("answers each id of nodes(ids) on its own: own ids load, foreign and malformed ones are null with a code at their index", async () => {
    const own = gid("ApiKey", b.apiKey.id);
    const ownWorkspace = gid("Workspace", b.workspace.id);
    const foreignKey = gid("ApiKey", a.apiKey.id);
    const foreignWorkspace = gid("Workspace", a.workspace.id);
    const malformed = "<script>alert(1)</script>";
    const notUuid = gid("ApiKey", "'; drop table");
    const notNode = gid("Viewer", b.apiKey.id);
    const ids = [own, foreignKey, malformed, ownWorkspace, foreignWorkspace, notUuid, notNode];
    const result = await client.request(NODES, { ids }, b.secret);
    expect(result.status).toBe(200);
    expect(result.data?.nodes).toEqual([
      { id: own, __typename: "ApiKey", name: "first key" },
      null,
      null,
      { id: ownWorkspace, __typename: "Workspace" },
      null,
      null,
      null,
    ]);
    const byIndex = Object.fromEntries((result.errors ?? []).map((e: any) => [e.path.join("."), e.extensions.code]));
    expect(byIndex).toEqual({ "nodes.1": "NOT_FOUND", "nodes.2": "BAD_USER_INPUT", "nodes.4": "NOT_FOUND", "nodes.5": "BAD_USER_INPUT", "nodes.6": "BAD_USER_INPUT" });
    const issues = (result.errors ?? []).filter((e: any) => e.extensions.code === "BAD_USER_INPUT").map((e: any) => e.extensions.issues[0].path);
    expect(issues).toEqual(["ids[2]", "ids[5]", "ids[6]"]);
    // Nothing of the input, nor of the other workspace, comes back.
    const text = JSON.stringify(result.errors);
    for (const sent of [foreignKey, foreignWorkspace, malformed, notUuid, "drop table", a.apiKey.id, a.workspace.name]) expect(text).not.toContain(sent);
  });

  it("answers node(id) singly: NOT_FOUND for another workspace's id, BAD_USER_INPUT for a malformed one, never echoed", async () => {
    const foreign = await client.request("query($id: ID!) { node(id: $id) { id } }", { id: gid("ApiKey", a.apiKey.id) }, b.secret);
    expect(foreign.data).toEqual({ node: null });
    expect(foreign.errors?.map((e: any) => [e.path, e.extensions.code])).toEqual([[["node"], "NOT_FOUND"]]);
    expect(JSON.stringify(foreign)).not.toContain(a.apiKey.id);
    const malformed = await client.request("query($id: ID!) { node(id: $id) { id } }", { id: "not base64 at all ✓" }, b.secret);
    expect(malformed.data).toEqual({ node: null });
    expect(malformed.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "id", message: expect.stringMatching(/not a valid id/) }] });
    expect(JSON.stringify(malformed)).not.toContain("base64 at all");
    const own = await client.request("query($id: ID!) { node(id: $id) { ... on ApiKey { name } } }", { id: gid("ApiKey", b.apiKey.id) }, b.secret);
    expect(own).toMatchObject({ data: { node: { name: "first key" } } });
    expect(own.errors).toBeUndefined();
  });

  it(`refuses more than ${MAX_NODES_IDS} ids with BAD_USER_INPUT naming ids`, async () => {
    const ids = Array.from({ length: MAX_NODES_IDS + 1 }, () => gid("ApiKey", b.apiKey.id));
    const result = await client.request(NODES, { ids }, b.secret);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "ids", message: `at most ${MAX_NODES_IDS} ids (got ${MAX_NODES_IDS + 1})` }] });
    const fits = await client.request(NODES, { ids: ids.slice(1) }, b.secret);
    expect(fits.errors).toBeUndefined();
    expect(fits.data?.nodes).toHaveLength(MAX_NODES_IDS);
  });
});

describe("ids of the wrong kind in arguments", () => {
  let app: App;
  let client: ReturnType<typeof graphqlClient>;
  beforeAll(() => {
    app = createTestApp();
    client = graphqlClient(app);
  });
  afterAll(() => app.close());

  it("answers an id of another type with BAD_USER_INPUT naming the type wanted, without echoing it", async () => {
    const b = await createTestWorkspace(app, "wrong-kind");
    const templateId = Buffer.from("Template:00000000-0000-4000-8000-000000000001").toString("base64");
    const result = await client.request("mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { id } } }", { id: templateId }, b.secret);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "input.id", message: "is not an id of a ApiKey" }] });
    expect(JSON.stringify(result)).not.toContain(templateId);
    const garbage = await client.request("mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { id } } }", { id: "%%%<img>" }, b.secret);
    expect(garbage.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(JSON.stringify(garbage)).not.toContain("<img>");
    // The same for an id argument of a query field.
    for (const query of ['{ span(id: "<b>x</b>") { spanId } }', '{ experiment(id: "<b>x</b>") { status } }', '{ evaluators(first: 1, templateId: "<b>x</b>") { edges { cursor } } }']) {
      const result = await client.request(query, {}, b.secret);
      expect([query, result.errors?.[0]?.extensions?.code]).toEqual([query, "BAD_USER_INPUT"]);
      expect(JSON.stringify(result)).not.toContain("<b>");
    }
  });

  it("names the argument that holds a malformed or wrong-type id (spanId, evaluatorId, input.spanId), literal or variable, without echoing it", async () => {
    const b = await createTestWorkspace(app, "id-args");
    const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
    const evaluatorId = gid("Evaluator", "00000000-0000-4000-8000-000000000000");
    const literal = await client.request(`query { explainMatch(spanId: "tr1:sp1", evaluatorId: "${evaluatorId}") { matched } }`, {}, b.secret);
    expect(literal.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "spanId", message: expect.stringMatching(/not a valid id/) }] });
    const both = await client.request("query($s: ID!, $e: ID!) { explainMatch(spanId: $s, evaluatorId: $e) { matched } }", { s: "tr1:sp1", e: "nope:nope" }, b.secret);
    expect(both.errors?.[0]?.extensions?.issues.map((i: any) => i.path).sort()).toEqual(["evaluatorId", "spanId"]);
    const wrongType = await client.request("query($s: ID!, $e: ID!) { explainMatch(spanId: $s, evaluatorId: $e) { matched } }", { s: gid("Span", "00000000-0000-4000-8000-000000000000"), e: gid("Template", "00000000-0000-4000-8000-000000000000") }, b.secret);
    expect(wrongType.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "evaluatorId" }] });
    const tried = await client.request('mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome } }', { input: { starterId: "levenshtein", spanId: "trace:span" } }, b.secret);
    expect(tried.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "input.spanId", message: expect.stringMatching(/not a valid id/) }] });
    for (const r of [literal, both, tried]) expect(JSON.stringify(r.errors)).not.toMatch(/tr1:sp1|trace:span|nope:nope/);
  });
});
