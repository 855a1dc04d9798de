import { afterAll, describe, expect, it } from "vitest";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

const app = createTestApp();
const client = graphqlClient(app);
afterAll(() => app.close());

const viewerQuery = "{ viewer { workspace { id name } apiKey { name revoked } } }";

describe("authentication", () => {
  it("refuses a request without a key with 401 UNAUTHENTICATED", async () => {
    const res = await client.request(viewerQuery);
    expect(res.status).toBe(401);
    expect(res.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    expect(res.data ?? null).toBeNull();
  });

  it("refuses an unknown key and a malformed header with 401", async () => {
    const unknown = await client.request(viewerQuery, {}, "oodle_sk_not-a-real-key");
    expect(unknown.status).toBe(401);
    expect(unknown.errors?.[0]?.message).toMatch(/unknown or revoked/);
    const yoga = client.yoga;
    const basic = await yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Basic abc" },
      body: JSON.stringify({ query: viewerQuery }),
    });
    expect(basic.status).toBe(401);
  });

  it("answers viewer with the key's workspace", async () => {
    const { workspace, secret } = await createTestWorkspace(app, "viewer");
    const res = await client.request(viewerQuery, {}, secret);
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    expect(res.data?.viewer.workspace.name).toBe(workspace.name);
    expect(Buffer.from(res.data?.viewer.workspace.id, "base64").toString()).toBe(`Workspace:${workspace.id}`);
    expect(res.data?.viewer.apiKey).toEqual({ name: "first key", revoked: false });
  });

  it("creates a key shown once, and a revoked key gets 401", async () => {
    const { secret } = await createTestWorkspace(app, "revoke");
    const created = await client.request(
      `mutation { createApiKey(input: { name: "ci" }) { secret apiKey { id name prefix revoked } } }`,
      {},
      secret,
    );
    expect(created.errors).toBeUndefined();
    const newSecret: string = created.data?.createApiKey.secret;
    expect(newSecret).toMatch(/^oodle_sk_[A-Za-z0-9_-]{43}$/);
    expect(newSecret.startsWith(created.data?.createApiKey.apiKey.prefix)).toBe(true);
    expect((await client.request(viewerQuery, {}, newSecret)).status).toBe(200);

    // Only the hash is stored: the secret appears nowhere in the table.
    const rows = await app.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "ApiKey" WHERE "secretHash" = ${newSecret} OR prefix = ${newSecret}`;
    expect(Number(rows[0]!.n)).toBe(0);

    const revoked = await client.request(
      `mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { revoked revokedAt } } }`,
      { id: created.data?.createApiKey.apiKey.id },
      secret,
    );
    expect(revoked.data?.revokeApiKey.apiKey.revoked).toBe(true);
    const after = await client.request(viewerQuery, {}, newSecret);
    expect(after.status).toBe(401);
    expect(after.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    // The other key of the workspace still works.
    expect((await client.request(viewerQuery, {}, secret)).status).toBe(200);
  });

  it("refuses an empty key name with BAD_USER_INPUT naming the field", async () => {
    const { secret } = await createTestWorkspace(app, "badname");
    const res = await client.request(`mutation { createApiKey(input: { name: "  " }) { secret } }`, {}, secret);
    expect(res.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors?.[0]?.extensions?.issues).toEqual([{ path: "input.name", message: "must not be empty" }]);
  });
});

describe("tenancy", () => {
  it("reads another workspace's API key id as NOT_FOUND, never FORBIDDEN", async () => {
    const a = await createTestWorkspace(app, "tenant-a");
    const b = await createTestWorkspace(app, "tenant-b");
    const globalId = Buffer.from(`ApiKey:${b.apiKey.id}`).toString("base64");

    const revoke = await client.request(
      `mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { id } } }`,
      { id: globalId },
      a.secret,
    );
    expect(revoke.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const stillActive = await app.prisma.apiKey.findUniqueOrThrow({ where: { id: b.apiKey.id } });
    expect(stillActive.revokedAt).toBeNull();

    const node = await client.request(`query($id: ID!) { node(id: $id) { id } }`, { id: globalId }, a.secret);
    expect(node.data?.node ?? null).toBeNull();
    expect(JSON.stringify(node)).not.toContain("FORBIDDEN");

    const own = await client.request(`query($id: ID!) { node(id: $id) { id } }`, { id: globalId }, b.secret);
    expect(own.data?.node.id).toBe(globalId);
  });

  it("lists only the workspace's own keys", async () => {
    const a = await createTestWorkspace(app, "list-a");
    await createTestWorkspace(app, "list-b");
    const res = await client.request(`{ viewer { workspace { apiKeys(first: 10) { edges { node { name } } } } } }`, {}, a.secret);
    expect(res.data?.viewer.workspace.apiKeys.edges).toEqual([{ node: { name: "first key" } }]);
  });
});
