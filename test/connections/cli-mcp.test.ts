// `oodle genai connections …` (a subprocess) and the MCP tool genai_connections (the SDK's client
// over /mcp) against the real service, testing against a real loopback OpenAI-compatible server.
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliRunner, OODLE_BIN, ROOT, serviceForThisFile } from "../cli/service.js";
import { startOpenAiServer, type FakeProvider } from "./fake-providers.js";

const service = serviceForThisFile({ CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" });
const T = 120_000;
const providerKey = `sk-cli-${randomBytes(24).toString("base64url")}`;

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

describe("connections from the CLI and MCP", () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startOpenAiServer(providerKey);
  });
  afterAll(() => provider.close());

  it("oodle genai connections create (key from an env variable or stdin), list, test, update, delete", { timeout: T }, async () => {
    const { key } = await service.workspace("conn-cli");
    const oodle = cliRunner(service, key);
    const created = await oodle(["--json", "genai", "connections", "create", "local", "--provider", "openai", "--base-url", provider.baseUrl, "--model", "known-model", "--api-key-env", "MY_PROVIDER_KEY"], { MY_PROVIDER_KEY: providerKey });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: "local", provider: "openai", defaultModel: "known-model", keyHint: providerKey.slice(-4), maxConcurrentRequests: 4 });

    // No key given: refused naming the flags; an unset variable: refused naming it.
    const none = await oodle(["genai", "connections", "create", "nokey", "--provider", "openai", "--model", "m"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("--api-key-env VAR or --api-key-stdin");
    const unset = await oodle(["genai", "connections", "create", "nokey", "--provider", "openai", "--model", "m", "--api-key-env", "NOT_SET_ANYWHERE"]);
    expect(unset.exitCode).toBe(2);
    expect(unset.stderr).toContain("the environment variable NOT_SET_ANYWHERE is not set or empty");
    // An API refusal names the flag.
    const badUrl = await oodle(["genai", "connections", "create", "bad", "--provider", "openai", "--model", "m", "--base-url", "not a url", "--api-key-env", "K"], { K: providerKey });
    expect(badUrl.exitCode).toBe(2);
    expect(badUrl.stderr).toContain("--base-url");
    expect(badUrl.stderr).toContain("must be an http(s) URL");

    // From stdin (the first line).
    const piped = await execa(process.execPath, [OODLE_BIN, "--json", "genai", "connections", "create", "piped", "--provider", "anthropic", "--model", "claude-x", "--api-key-stdin"], {
      cwd: ROOT,
      reject: false,
      env: { OODLE_API_URL: service.url, OODLE_API_KEY: key },
      input: `${providerKey}\n`,
    });
    expect(piped.exitCode, String(piped.stderr)).toBe(0);
    expect(JSON.parse(String(piped.stdout))).toMatchObject({ name: "piped", provider: "anthropic", keyHint: providerKey.slice(-4) });

    const list = await oodle(["genai", "connections", "list"]);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toContain("local");
    expect(list.stdout).toContain("piped");
    expect(list.stdout).toContain(`…${providerKey.slice(-4)}`);

    const ok = await oodle(["genai", "connections", "test", "local"]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^ok: local answered with known-model-served in \d+ ms/);
    const missing = await oodle(["genai", "connections", "test", "local", "--model", "missing-model"]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stdout).toContain("failed: local (missing-model): unknown_model, HTTP 404");
    const busy = await oodle(["--json", "genai", "connections", "test", "local", "--model", "busy-model"]);
    expect(busy.exitCode).toBe(1);
    expect(JSON.parse(busy.stdout)).toMatchObject({ ok: false, error: { code: "rate_limited", status: 429, retryAfterSeconds: 7 } });

    const updated = await oodle(["--json", "genai", "connections", "update", "local", "--max-concurrent-requests", "9", "--name", "local2"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ name: "local2", maxConcurrentRequests: 9 });
    const tooMany = await oodle(["genai", "connections", "update", "local2", "--max-concurrent-requests", "100"]);
    expect(tooMany.exitCode).toBe(2);
    expect(tooMany.stderr).toContain("--max-concurrent-requests");
    expect(tooMany.stderr).toContain("must be at most 64");

    const deleted = await oodle(["genai", "connections", "delete", "piped"]);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain('deleted connection "piped"');
    const gone = await oodle(["genai", "connections", "test", "piped"]);
    expect(gone.exitCode).toBe(3);

    for (const r of [created, list, ok, missing, busy, updated, deleted]) expect(r.stdout + r.stderr).not.toContain(providerKey.slice(8, 24));
  });

  it("genai_connections over /mcp: list and test; a missing argument is isError naming it", { timeout: T }, async () => {
    const { key } = await service.workspace("conn-mcp");
    const oodle = cliRunner(service, key);
    const created = await oodle(["genai", "connections", "create", "judge", "--provider", "openai", "--base-url", provider.baseUrl, "--model", "known-model", "--api-key-env", "K"], { K: providerKey });
    expect(created.exitCode, created.stderr).toBe(0);
    const client = new Client({ name: "oodle-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const call = async (args: Record<string, unknown>) => (await client.callTool({ name: "genai_connections", arguments: args })) as Result;
      const tool = (await client.listTools()).tools.find((t) => t.name === "genai_connections")!;
      expect((tool.inputSchema.properties as any).action.enum).toEqual(["list", "test"]);
      const list = await call({ action: "list" });
      expect(list.isError, list.content[0]?.text).toBeFalsy();
      expect(list.content[0]!.text).toContain(`judge (`);
      expect(list.content[0]!.text).toContain(`key …${providerKey.slice(-4)}`);
      const ok = await call({ action: "test", connection: "judge" });
      expect(ok.isError, ok.content[0]?.text).toBeFalsy();
      expect(ok.structuredContent).toMatchObject({ ok: true, model: "known-model-served", error: null });
      const missing = await call({ action: "test", connection: "judge", model: "missing-model" });
      expect(missing.structuredContent).toMatchObject({ ok: false, error: { code: "unknown_model", status: 404 } });
      const noName = await call({ action: "test" });
      expect(noName.isError).toBe(true);
      expect(noName.content[0]!.text).toContain("connection");
      for (const r of [list, ok, missing]) expect(JSON.stringify(r)).not.toContain(providerKey.slice(8, 24));
    } finally {
      await client.close();
    }
  });
});
