import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { parseKeyRing } from "../../src/lib/key-ring.js";
import { createLogger } from "../../src/lib/logger.js";
import { redactKey } from "../../src/modules/connections/providers.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";
import { closedPortUrl, startAnthropicServer, startOpenAiServer, type FakeProvider } from "./fake-providers.js";

// Connections (src/modules/connections, docs/connections.md): sealed keys, testConnection through
// the official SDKs against real loopback servers, rotation, and the key never leaving the service.

const CONNECTION_FIELDS = "id name provider baseUrl defaultModel maxConcurrentRequests keyHint keyId createdAt updatedAt";
const CREATE = `mutation($input: CreateConnectionInput!) { createConnection(input: $input) { connection { ${CONNECTION_FIELDS} } } }`;
const UPDATE = `mutation($input: UpdateConnectionInput!) { updateConnection(input: $input) { connection { ${CONNECTION_FIELDS} } } }`;
const DELETE = `mutation($input: DeleteConnectionInput!) { deleteConnection(input: $input) { deletedConnectionId name } }`;
const TEST = `mutation($input: TestConnectionInput!) { testConnection(input: $input) { ok model latencyMs error { code message status retryAfterSeconds } connection { id name } } }`;
const LIST = `{ connections(first: 100) { edges { node { ${CONNECTION_FIELDS} } } } }`;

/** A provider key of the usual shape, unique per call. */
const newKey = (prefix: string) => `${prefix}-${randomBytes(24).toString("base64url")}`;
const ringText = (id: string) => `${id}:${randomBytes(32).toString("base64")}`;

describe("connections", () => {
  const lines: string[] = [];
  let app: App;
  let gql: ReturnType<typeof graphqlClient>;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  const openaiKey = newKey("sk-proj");
  const anthropicKey = newKey("sk-ant-api03");
  /** Every GraphQL answer of this file, to grep for keys. */
  const answers: string[] = [];

  beforeAll(async () => {
    // A logger at trace level into `lines`: what would have gone to stdout.
    // The fake providers listen on loopback, as a local model server does: allowed here (the guard's own test turns it off).
    app = createApp(loadConfig({ ...process.env, CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" }), { logger: createLogger("trace", { write: (line: string) => void lines.push(line) }) });
    gql = graphqlClient(app);
    openai = await startOpenAiServer(openaiKey);
    anthropic = await startAnthropicServer(anthropicKey);
  });
  afterAll(async () => {
    await openai.close();
    await anthropic.close();
    await app.close();
  });

  async function request(query: string, variables: Record<string, unknown>, key: string) {
    const answer = await gql.request(query, variables, key);
    answers.push(JSON.stringify(answer));
    return answer;
  }

  async function createConnection(secret: string, input: Record<string, unknown>) {
    const answer = await request(CREATE, { input }, secret);
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    return answer.data!.createConnection.connection as Record<string, any>;
  }

  async function test(secret: string, id: string, model?: string) {
    const answer = await request(TEST, { input: { id, ...(model ? { model } : {}) } }, secret);
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    return answer.data!.testConnection as { ok: boolean; model: string; latencyMs: number; error: { code: string; message: string; status: number | null; retryAfterSeconds: number | null } | null };
  }

  it("stores the key sealed (AES-256-GCM under CONNECTION_KEYS) and answers only its hint", async () => {
    const { secret } = await createTestWorkspace(app, "connections-seal");
    const created = await createConnection(secret, { name: "OpenAI", provider: "openai", baseUrl: openai.baseUrl, defaultModel: "gpt-test", apiKey: openaiKey });
    expect(created).toMatchObject({ name: "OpenAI", provider: "openai", baseUrl: openai.baseUrl, defaultModel: "gpt-test", maxConcurrentRequests: 4, keyHint: openaiKey.slice(-4), keyId: "test-1" });
    const row = await app.prisma.connection.findFirstOrThrow({ where: { name: "OpenAI", baseUrl: openai.baseUrl, keyHint: openaiKey.slice(-4) } });
    expect(row.keyCiphertext).not.toBe(openaiKey);
    expect(row.keyCiphertext).not.toContain(openaiKey.slice(10, 30));
    expect(Buffer.from(row.keyCiphertext, "base64").toString("latin1")).not.toContain(openaiKey.slice(10, 30));
    expect(Buffer.from(row.keyIv, "base64")).toHaveLength(12);
    expect(Buffer.from(row.keyAuthTag, "base64")).toHaveLength(16);
    // The round trip: the ring of the configuration opens it, bound to the connection's id.
    const ring = loadConfig({ ...process.env }).CONNECTION_KEYS!;
    const sealed = { ciphertext: row.keyCiphertext, iv: row.keyIv, authTag: row.keyAuthTag, keyId: row.keyId };
    expect(ring.open(sealed, row.id)).toBe(openaiKey);
    expect(() => ring.open(sealed, randomUUID())).toThrow(/does not open/);
    // And the SDK sent exactly that key to the provider.
    const before = openai.requests.length;
    expect(await test(secret, created.id)).toMatchObject({ ok: true, model: "gpt-test-served", error: null });
    expect(openai.requests.slice(before).map((r) => r.credential)).toEqual([openaiKey]);
    expect(openai.requests.at(-1)!.body).toMatchObject({ model: "gpt-test", max_tokens: 1 });
  });

  it("testConnection maps the OpenAI SDK's answers: 200, 401, 404, 429 with Retry-After, no answer", async () => {
    const { secret } = await createTestWorkspace(app, "connections-openai");
    const c = await createConnection(secret, { name: "local", provider: "openai", baseUrl: openai.baseUrl, defaultModel: "known-model", apiKey: openaiKey });
    const ok = await test(secret, c.id);
    expect(ok).toMatchObject({ ok: true, model: "known-model-served", error: null });
    expect(ok.latencyMs).toBeGreaterThanOrEqual(0);
    expect(await test(secret, c.id, "missing-model")).toMatchObject({ ok: false, model: "missing-model", error: { code: "unknown_model", status: 404, retryAfterSeconds: null } });
    expect(await test(secret, c.id, "busy-model")).toMatchObject({ ok: false, error: { code: "rate_limited", status: 429, retryAfterSeconds: 7 } });
    // A wrong key: the server echoes it in its message; the answer does not.
    const wrongKey = newKey("sk-proj");
    await request(UPDATE, { input: { id: c.id, apiKey: wrongKey } }, secret);
    const refused = await test(secret, c.id);
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_key", status: 401 } });
    expect(refused.error!.message).toContain("Incorrect API key provided: [redacted]");
    expect(JSON.stringify(refused)).not.toContain(wrongKey.slice(8, 20));
    await request(UPDATE, { input: { id: c.id, baseUrl: await closedPortUrl(), apiKey: openaiKey } }, secret);
    expect(await test(secret, c.id)).toMatchObject({ ok: false, error: { code: "unreachable", status: null } });
  });

  it("testConnection maps the Anthropic SDK's answers: 200, 401, 404, 429 with Retry-After", async () => {
    const { secret } = await createTestWorkspace(app, "connections-anthropic");
    const c = await createConnection(secret, { name: "claude", provider: "anthropic", baseUrl: anthropic.baseUrl, defaultModel: "claude-test", apiKey: anthropicKey, maxConcurrentRequests: 2 });
    expect(c.maxConcurrentRequests).toBe(2);
    const before = anthropic.requests.length;
    expect(await test(secret, c.id)).toMatchObject({ ok: true, model: "claude-test-served", error: null });
    expect(anthropic.requests.slice(before)).toMatchObject([{ path: "/v1/messages", credential: anthropicKey, body: { model: "claude-test", max_tokens: 1 } }]);
    expect(await test(secret, c.id, "missing-model")).toMatchObject({ ok: false, error: { code: "unknown_model", status: 404 } });
    expect(await test(secret, c.id, "busy-model")).toMatchObject({ ok: false, error: { code: "rate_limited", status: 429, retryAfterSeconds: 7 } });
    const wrongKey = newKey("sk-ant-api03");
    await request(UPDATE, { input: { id: c.id, apiKey: wrongKey } }, secret);
    const refused = await test(secret, c.id);
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_key", status: 401 } });
    expect(refused.error!.message).not.toContain(wrongKey.slice(8, 20));
  });

  it("the retry policy is a parameter: with one retry the SDK waits the Retry-After and the test passes", async () => {
    const retrying = createTestApp();
    try {
      // The service default is no retry (a test says at once that the provider is busy); a service built with retries lets the SDK retry.
      const { createConnectionService } = await import("../../src/modules/connections/service.js");
      const service = createConnectionService({ prisma: retrying.prisma, logger: retrying.logger, keyRing: retrying.config.CONNECTION_KEYS, probe: { maxRetries: 1, allowPrivate: true } });
      const { workspace } = await createTestWorkspace(retrying, "connections-retry");
      const principal = { workspaceId: workspace.id, apiKeyId: randomUUID() };
      const provider = await startOpenAiServer(openaiKey);
      try {
        const c = await service.createConnection(principal, { name: "flaky", provider: "openai", baseUrl: provider.baseUrl, defaultModel: "flaky-model", apiKey: openaiKey });
        const result = await service.testConnection(principal, { id: c.id });
        expect(result).toMatchObject({ ok: true, model: "flaky-model-served", error: null });
        expect(provider.requests).toHaveLength(2);
      } finally {
        await provider.close();
      }
    } finally {
      await retrying.close();
    }
  });

  it("a provider that does not answer in time is a timeout (the time a call may take is a parameter)", async () => {
    const { createServer } = await import("node:http");
    const silent = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
    const { createConnectionService } = await import("../../src/modules/connections/service.js");
    const service = createConnectionService({ prisma: app.prisma, logger: app.logger, keyRing: app.config.CONNECTION_KEYS, probe: { timeoutMs: 200, allowPrivate: true } });
    try {
      const { workspace } = await createTestWorkspace(app, "connections-timeout");
      const principal = { workspaceId: workspace.id, apiKeyId: randomUUID() };
      const port = (silent.address() as { port: number }).port;
      const c = await service.createConnection(principal, { name: "silent", provider: "openai", baseUrl: `http://127.0.0.1:${port}/v1`, defaultModel: "m", apiKey: openaiKey });
      expect(await service.testConnection(principal, { id: c.id })).toMatchObject({ ok: false, error: { code: "timeout", status: null } });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("attack: SSRF: by default a connection cannot reach a loopback or private address, by IP literal or by a name resolving to one (the socket's lookup is checked)", async () => {
    const { createConnectionService } = await import("../../src/modules/connections/service.js");
    const guarded = createConnectionService({ prisma: app.prisma, logger: app.logger, keyRing: app.config.CONNECTION_KEYS });
    const { workspace } = await createTestWorkspace(app, "connections-ssrf");
    const principal = { workspaceId: workspace.id, apiKeyId: randomUUID() };
    const seen = openai.requests.length;
    const port = new URL(openai.baseUrl).port;
    for (const [name, baseUrl, address] of [["literal", openai.baseUrl, "127.0.0.1"], ["name", `http://localhost:${port}/v1`, "localhost resolves to"], ["mapped", `http://[::ffff:127.0.0.1]:${port}/v1`, "::ffff:7f00:1"], ["metadata", "http://169.254.169.254/v1", "169.254.169.254"]] as const) {
      const c = await guarded.createConnection(principal, { name, provider: "openai", baseUrl, defaultModel: "gpt-test", apiKey: openaiKey });
      const result = await guarded.testConnection(principal, { id: c.id });
      expect(result, name).toMatchObject({ ok: false, error: { code: "private_address" } });
      expect(result.error!.message, name).toContain(address);
      expect(result.error!.message, name).toContain("CONNECTION_ALLOW_PRIVATE_DESTINATIONS=true");
    }
    // Nothing reached the server behind them.
    expect(openai.requests.length).toBe(seen);
  });

  it("the GraphQL type has no field of the key: only its hint and the encryption key's id", async () => {
    const { schema } = await import("../../src/graphql-schema.js");
    const type = schema.getType("ProviderConnection") as import("graphql").GraphQLObjectType;
    expect(Object.keys(type.getFields()).sort()).toEqual(["baseUrl", "createdAt", "defaultModel", "id", "keyHint", "keyId", "maxConcurrentRequests", "name", "provider", "updatedAt"]);
  });

  it("lists, updates and deletes within the workspace only; names are unique per workspace", async () => {
    const a = await createTestWorkspace(app, "connections-a");
    const b = await createTestWorkspace(app, "connections-b");
    const c = await createConnection(a.secret, { name: "shared name", provider: "openai", defaultModel: "m", apiKey: openaiKey });
    expect(c.baseUrl).toBeNull();
    await createConnection(b.secret, { name: "shared name", provider: "anthropic", defaultModel: "m", apiKey: anthropicKey });
    const taken = await request(CREATE, { input: { name: "shared name", provider: "openai", defaultModel: "m", apiKey: openaiKey } }, a.secret);
    expect(taken.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "name", message: 'a connection named "shared name" already exists in this workspace' }] });
    const listA = (await request(LIST, {}, a.secret)).data!.connections.edges.map((e: any) => e.node);
    expect(listA.map((n: any) => [n.name, n.provider])).toEqual([["shared name", "openai"]]);
    // Another workspace's connection is not found, by any mutation.
    for (const query of [TEST, DELETE]) {
      const foreign = await request(query, { input: { id: c.id } }, b.secret);
      expect(foreign.errors![0]!.extensions!.code).toBe("NOT_FOUND");
    }
    const updated = (await request(UPDATE, { input: { id: c.id, name: "renamed", defaultModel: "m2", baseUrl: openai.baseUrl, maxConcurrentRequests: 8, apiKey: openaiKey } }, a.secret)).data!.updateConnection.connection;
    expect(updated).toMatchObject({ name: "renamed", defaultModel: "m2", baseUrl: openai.baseUrl, maxConcurrentRequests: 8, keyHint: openaiKey.slice(-4) });
    const cleared = (await request(UPDATE, { input: { id: c.id, baseUrl: null, apiKey: openaiKey } }, a.secret)).data!.updateConnection.connection;
    expect(cleared.baseUrl).toBeNull();
    const deleted = (await request(DELETE, { input: { id: c.id } }, a.secret)).data!.deleteConnection;
    expect(deleted).toEqual({ deletedConnectionId: c.id, name: "renamed" });
    expect(await app.prisma.connection.count({ where: { workspaceId: a.workspace.id } })).toBe(0);
  });

  it("refuses bad input naming each field and rule, storing nothing", async () => {
    const { workspace, secret } = await createTestWorkspace(app, "connections-input");
    const bad = await request(CREATE, { input: { name: "  ", provider: "openai", baseUrl: "ftp://example.com", defaultModel: "", maxConcurrentRequests: 65, apiKey: "has space" } }, secret);
    expect(bad.errors![0]!.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "name", message: "must not be empty" },
        { path: "baseUrl", message: "must be an http(s) URL" },
        { path: "defaultModel", message: "must not be empty" },
        { path: "maxConcurrentRequests", message: "must be at most 64" },
        { path: "apiKey", message: "must not contain whitespace" },
      ],
    });
    const zero = await request(CREATE, { input: { name: "x", provider: "openai", defaultModel: "m", maxConcurrentRequests: 0, apiKey: openaiKey } }, secret);
    expect(zero.errors![0]!.extensions!.issues).toEqual([{ path: "maxConcurrentRequests", message: "must be at least 1" }]);
    // The provider is a closed list in the service too (the CLI and MCP reach it through GraphQL's enum).
    await expect(app.services.connections.createConnection({ workspaceId: workspace.id, apiKeyId: randomUUID() }, { name: "x", provider: "azure", defaultModel: "m", apiKey: openaiKey })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "provider", message: "must be one of openai, anthropic" }],
    });
    expect(await app.prisma.connection.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("rotation: a key sealed under an old key id still opens, is re-encrypted under the new one, and the old key can go", async () => {
    const oldId = `old-${randomBytes(3).toString("hex")}`;
    const newId = `new-${randomBytes(3).toString("hex")}`;
    const oldRing = ringText(oldId);
    const newRing = ringText(newId);
    const local = { CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" };
    const before = createTestApp({ CONNECTION_KEYS: oldRing, ...local });
    const both = createTestApp({ CONNECTION_KEYS: `${newRing},${oldRing}`, ...local });
    const after = createTestApp({ CONNECTION_KEYS: newRing, ...local });
    try {
      const { workspace } = await createTestWorkspace(before, "connections-rotation");
      const principal = { workspaceId: workspace.id, apiKeyId: randomUUID() };
      const provider = await startOpenAiServer(openaiKey);
      try {
        const c = await before.services.connections.createConnection(principal, { name: "rotating", provider: "openai", baseUrl: provider.baseUrl, defaultModel: "m", apiKey: openaiKey });
        expect(c.keyId).toBe(oldId);
        // Only the new key: the old one is needed, and the error says which variable and key.
        await expect(after.services.connections.testConnection(principal, { id: c.id })).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringContaining(`sealed with key "${oldId}", which CONNECTION_KEYS no longer lists`) });
        // New first, old kept: it still opens, and re-encryption moves it to the new key.
        expect(await both.services.connections.testConnection(principal, { id: c.id })).toMatchObject({ ok: true });
        const report = await both.services.connections.reencryptConnections();
        expect(report.reencrypted).toBeGreaterThanOrEqual(1);
        const row = await both.prisma.connection.findUniqueOrThrow({ where: { id: c.id } });
        expect(row.keyId).toBe(newId);
        expect(row.keyCiphertext).not.toBe(c.keyCiphertext);
        expect(report.failed.map((f) => f.id)).not.toContain(c.id);
        // The old key dropped: it opens with the new one alone, and the provider got the same key each time.
        expect(await after.services.connections.testConnection(principal, { id: c.id })).toMatchObject({ ok: true });
        expect(provider.requests.map((r) => r.credential)).toEqual([openaiKey, openaiKey]);
        // A second pass has nothing to do for it.
        const again = await both.services.connections.reencryptConnections();
        expect(again.failed.map((f) => f.id)).not.toContain(c.id);
        expect((await both.prisma.connection.findUniqueOrThrow({ where: { id: c.id } })).keyCiphertext).toBe(row.keyCiphertext);
      } finally {
        await provider.close();
      }
    } finally {
      await Promise.all([before.close(), both.close(), after.close()]);
    }
  });

  it("without CONNECTION_KEYS the service starts, and creating a connection is refused naming the variable", async () => {
    const bare = createTestApp({ CONNECTION_KEYS: "" });
    try {
      expect(bare.config.CONNECTION_KEYS).toBeUndefined();
      const { secret } = await createTestWorkspace(bare, "connections-nokeys");
      const answer = await graphqlClient(bare).request(CREATE, { input: { name: "x", provider: "openai", defaultModel: "m", apiKey: openaiKey } }, secret);
      expect(answer.status).toBe(503);
      expect(answer.errors![0]!.message).toBe("cannot store the API key: the service's CONNECTION_KEYS is not set (docs/connections.md § The encryption key)");
      expect(answer.errors![0]!.extensions).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryable: false });
      expect(JSON.stringify(answer)).not.toContain(openaiKey);
    } finally {
      await bare.close();
    }
  });

  it("a malformed CONNECTION_KEYS stops the start, naming the variable and never the key", () => {
    const short = Buffer.alloc(16, 1).toString("base64");
    const cases: [string, string][] = [
      [`k1:${short}`, 'key "k1" must be 32 bytes, base64-encoded (openssl rand -base64 32)'],
      ["no-colon", "entry 1 must be id:base64key with an id of 1 to 32 letters, digits, _, - or ."],
      [`k1:${Buffer.alloc(32).toString("base64")},k1:${Buffer.alloc(32).toString("base64")}`, 'key id "k1" is listed twice'],
      [",", "must list at least one id:base64key"],
    ];
    for (const [value, message] of cases) {
      let caught: unknown;
      try {
        loadConfig({ CONNECTION_KEYS: value });
      } catch (error) {
        caught = error;
      }
      expect(caught, value).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).issues).toEqual([{ variable: "CONNECTION_KEYS", message }]);
      expect((caught as Error).message).not.toContain(short);
    }
    expect(parseKeyRing(`a:${Buffer.alloc(32, 2).toString("base64")}, b:${Buffer.alloc(32, 3).toString("base64")}`).keyIds).toEqual(["a", "b"]);
  });

  it("redactKey removes the key and any 6-character piece of it from a provider's message", () => {
    const key = "sk-abcdefghijklmnop1234";
    expect(redactKey(`Incorrect API key provided: ${key}.`, key)).toBe("Incorrect API key provided: [redacted]");
    expect(redactKey("key sk-abc***p1234 is wrong, see ghijkl", key)).toBe("key [redacted] is wrong, see [redacted]");
    expect(redactKey("model not found", key)).toBe("model not found");
    expect(redactKey("x".repeat(600), key)).toHaveLength(500);
  });

  // Last: greps everything the tests above made (they run in order in this file).
  it("no key appears in a GraphQL answer, a log line or /metrics", async () => {
    const logged = lines.length;
    app.logger.info({ input: { apiKey: openaiKey }, variables: { input: { apiKey: openaiKey } }, apiKey: openaiKey }, "a careless log line");
    expect(lines.length).toBe(logged + 1);
    expect(lines.at(-1)).toContain("[redacted]");
    expect(answers.length).toBeGreaterThan(20);
    expect(lines.some((l) => l.includes('"msg":"connection tested"'))).toBe(true);
    const metrics = (await app.metrics.scrape()).body;
    for (const key of [openaiKey, anthropicKey]) {
      for (const piece of [key, key.slice(-12)]) {
        expect(answers.filter((a) => a.includes(piece))).toEqual([]);
        expect(lines.filter((l) => l.includes(piece))).toEqual([]);
        expect(metrics.includes(piece)).toBe(false);
      }
    }
  });
});
