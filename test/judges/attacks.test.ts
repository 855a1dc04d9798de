// Attacks on judges from the review (issue 30): each case says how the attack worked and checks the
// fix. A provider is the connection owner's server, so it may be hostile: it may drip its body,
// ask for absurd Retry-After waits, or answer nonsense; a span author controls the document; any
// holder of a workspace API key may edit a connection.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { BadUserInputError } from "../../src/lib/errors.js";
import { isPrivateAddress } from "../../src/lib/private-addresses.js";
import { retryAfterSeconds } from "../../src/modules/connections/providers.js";
import { MAX_RETRY_AFTER_MS, retryDelayMs } from "../../src/modules/evaluation/judge-executor.js";
import { callJudge } from "../../src/modules/judges/call.js";
import { MAX_RENDERED_PROMPT_CHARS, PromptTooLargeError, renderMessages } from "../../src/modules/judges/prompt.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

let app: App;
beforeAll(() => {
  app = createTestApp();
});
afterAll(() => app.close());

describe("attacks on judges", () => {
  it("a connection moved to another server needs its key again (else the stored key would be sent to the attacker's server)", async () => {
    const ws = await createTestWorkspace(app, "judge-attack-move");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const connection = await app.services.connections.createConnection(principal, { name: "Real", provider: "openai", baseUrl: "https://models.example.invalid/v1", defaultModel: "m", apiKey: "sk-real-0123456789abcdef" });
    const refused = await app.services.connections.updateConnection(principal, { id: connection.id, baseUrl: "https://attacker.example.invalid/v1" }).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(BadUserInputError);
    expect((refused as BadUserInputError).issues).toEqual([{ path: "baseUrl", message: "changes where the key is sent: give apiKey with it (the stored key is never sent to a new destination)" }]);
    const moved = await app.services.connections.updateConnection(principal, { id: connection.id, baseUrl: "https://other.example.invalid/v1", apiKey: "sk-other-0123456789abcdef" });
    expect([moved.baseUrl, moved.keyHint]).toEqual(["https://other.example.invalid/v1", "cdef"]);
    // A change of name alone keeps the key.
    expect((await app.services.connections.updateConnection(principal, { id: connection.id, name: "Renamed" })).name).toBe("Renamed");
  });

  it("a provider that drips its body past the deadline is cut off as a timeout (the SDK's own timeout ends at the headers)", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{");
      const drip = setInterval(() => res.write(" "), 200);
      res.on("close", () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const started = Date.now();
      const answer = await callJudge({ provider: "openai", baseUrl, apiKey: "sk-drip-0123456789" }, { messages: [{ role: "user", content: "x" }], definition: [{ name: "ok", type: "boolean", higherIsBetter: true }], model: "m", maxOutputTokens: 16 }, { maxRetries: 0, timeoutMs: 800, allowPrivate: true });
      expect(answer.ok).toBe(false);
      expect(answer.ok ? null : answer.error.code).toBe("timeout");
      // Cut at the deadline, not after minutes of drip (a generous bound: only that it stopped).
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("Retry-After is held to [1 s, 1 h]: 0 would spin the worker, a year would park the job, 400 digits were Infinity", () => {
    expect(retryDelayMs(0)).toBe(1_000);
    expect(retryDelayMs(7)).toBe(7_000);
    expect(retryDelayMs(31_536_000)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs(null)).toBe(5_000);
    expect(retryAfterSeconds({ "retry-after": "9".repeat(400) })).toBeNull();
    expect(retryAfterSeconds({ "retry-after": "12" })).toBe(12);
  });

  it("a template that repeats {{spans}} is refused before the prompt is built (it rendered to gigabytes)", () => {
    const spans = Array.from({ length: 50 }, (_, i) => ({ name: `tool ${i}`, kind: "tool", input: "x".repeat(100), output: "y".repeat(100) }));
    const messages = [{ role: "user" as const, content: "{{spans}} ".repeat(1_000) }];
    expect(() => renderMessages(messages, { trace: { spans } }, {})).toThrow(PromptTooLargeError);
    // A template under the bound renders.
    expect(renderMessages([{ role: "user", content: "{{spans}}" }], { trace: { spans } }, {})[1]!.content.length).toBeLessThan(MAX_RENDERED_PROMPT_CHARS);
  });

  it("addresses that embed a private IPv4 address, or are reserved, are private", () => {
    for (const address of ["64:ff9b::a00:1", "2002:a00:1::1", "::a00:1", "fec0::1", "198.18.0.1", "192.0.0.8", "::ffff:127.0.0.1", "169.254.169.254"]) expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ["8.8.8.8", "2606:4700:4700::1111", "1.1.1.1"]) expect(isPrivateAddress(address), address).toBe(false);
  });
});
