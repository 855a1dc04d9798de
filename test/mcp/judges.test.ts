import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api-client/http.js";
import { createOperations } from "../../src/api-client/operations.js";
import { OODLE_BIN, ROOT, serviceForThisFile } from "../cli/service.js";
import { startOpenAiServer, type FakeProvider } from "../connections/fake-providers.js";

// LLM judges through MCP (docs/judges.md): manage_genai_evaluators creates an llm template
// (kind llm, judge) and a judge evaluator (connectionName, maxCostPerHourUsd); the workbench
// validates a judge draft and tries it (try_code with connectionName) against a loopback fake
// OpenAI server. The connections are made over GraphQL, as MCP has no tool that takes a provider key.
const service = serviceForThisFile({ CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" });
const FAKE_KEY = "sk-test-mcp-judges-fake-0123456789";
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startOpenAiServer(FAKE_KEY);
});
afterAll(async () => {
  await fake.close();
});

const T = 300_000;

async function connect(transport: "stdio" | "http", key: string): Promise<Client> {
  const client = new Client({ name: "oodle-test", version: "1.0.0" });
  if (transport === "stdio") {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [OODLE_BIN, "mcp", "serve"],
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", OODLE_API_URL: service.url, OODLE_API_KEY: key, OODLE_CONFIG_DIR: "/nonexistent" },
        stderr: "ignore",
      }),
    );
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  }
  return client;
}

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;

const JUDGE = {
  messages: [{ role: "user", content: "Is this reply polite?\n{{output}}\nRubric: {{params.rubric}}" }],
  output: [
    { name: "polite", type: "boolean", higherIsBetter: true, description: "The reply is polite." },
    { name: "tone", type: "categorical", values: ["warm", "neutral", "cold"] },
  ],
  maxOutputTokens: 256,
};
const SETTINGS = [
  { name: "model", type: "string", default: "gpt-4o-mini" },
  { name: "rubric", type: "string", default: "Polite means courteous." },
];

describe.each(["stdio", "http"] as const)("judges over MCP (%s)", (transport) => {
  it("the tool schema describes judges; create_template with kind llm and judge, get_template, create_evaluator with connectionName and maxCostPerHourUsd", { timeout: T }, async () => {
    const { key } = await service.workspace("mcp-judges");
    await createOperations(createApiClient({ url: service.url, key })).connections.createConnection({ name: "Local", provider: "openai", baseUrl: "http://127.0.0.1:9/v1", defaultModel: "judge-default", apiKey: "sk-test-mcp-judges-0123456789" });
    const client = await connect(transport, key);
    try {
      const { tools } = await client.listTools();
      const manage = tools.find((t) => t.name === "manage_genai_evaluators")!;
      expect(manage.description).toContain("llm: a judge");
      const props = manage.inputSchema.properties as Record<string, any>;
      expect(props.kind.enum).toEqual(["code", "external", "judge", "llm"]);
      expect(props.judge.type).toBe("object");
      expect(Object.keys(props.judge.properties)).toEqual(["messages", "output", "maxOutputTokens", "cacheTtlSeconds"]);
      expect(props.connectionName.type).toBe("string");
      expect(props.maxCostPerHourUsd).toBeDefined();

      const created = await call(client, "manage_genai_evaluators", { action: "create_template", name: "Politeness", kind: "llm", judge: JUDGE, params: SETTINGS });
      expect(created.isError, created.content[0]?.text).toBeFalsy();
      expect(created.content[0]!.text).toBe('created llm template "Politeness" version 1');
      expect(created.structuredContent).toMatchObject({ name: "Politeness", kind: "llm", latestVersion: { sourceCode: "", judge: { ...JUDGE, cacheTtlSeconds: 86400 } } });

      // A judge without kind makes an llm template too; a judge with kind code is refused by the API, naming the field.
      const implied = await call(client, "manage_genai_evaluators", { action: "create_template", name: "Implied", judge: JUDGE, params: SETTINGS });
      expect(implied.isError, implied.content[0]?.text).toBeFalsy();
      expect(implied.structuredContent.kind).toBe("llm");
      const mixed = await call(client, "manage_genai_evaluators", { action: "create_template", name: "Mixed", kind: "code", judge: JUDGE });
      expect(mixed.isError).toBe(true);
      expect(mixed.content[0]!.text).toContain("judge");
      // An evaluator kind is not a template kind.
      const wrongKind = await call(client, "manage_genai_evaluators", { action: "create_template", name: "Wrong", kind: "judge", judge: JUDGE });
      expect(wrongKind.isError).toBe(true);
      expect(wrongKind.content[0]!.text).toContain("create_template: must be one of code, llm");

      const got = await call(client, "manage_genai_evaluators", { action: "get_template", name: "Politeness" });
      expect(got.content[0]!.text).toBe(
        `Politeness (llm) version 1; settings: model (string), rubric (string); judge output: polite (boolean, higher is better): The reply is polite.; tone (categorical warm|neutral|cold); messages: user (${JUDGE.messages[0]!.content.length} characters)`,
      );

      // The judge evaluator: kind judge (from the template), its connection and spend cap.
      const evaluator = await call(client, "manage_genai_evaluators", { action: "create_evaluator", name: "Politeness judge", templateName: "Politeness", connectionName: "Local", maxCostPerHourUsd: 1.5, params: { rubric: "Thanks count." } });
      expect(evaluator.isError, evaluator.content[0]?.text).toBeFalsy();
      expect(evaluator.structuredContent).toMatchObject({ kind: "judge", connection: { name: "Local", provider: "openai", defaultModel: "judge-default" }, maxCostPerHourUsd: 1.5, resolvedParams: { model: "gpt-4o-mini", rubric: "Thanks count." } });
      const shown = await call(client, "manage_genai_evaluators", { action: "get_evaluator", name: "Politeness judge" });
      expect(shown.content[0]!.text).toContain("Politeness judge (judge): template Politeness version 1");
      expect(shown.content[0]!.text).toContain("connection Local (openai, default model judge-default), spend cap $1.5/hour");
      const uncapped = await call(client, "manage_genai_evaluators", { action: "update_evaluator", name: "Politeness judge", maxCostPerHourUsd: null });
      expect(uncapped.isError, uncapped.content[0]?.text).toBeFalsy();
      expect(uncapped.structuredContent.maxCostPerHourUsd).toBeNull();

      // No connection: refused by the API naming the field.
      const missing = await call(client, "manage_genai_evaluators", { action: "create_evaluator", name: "No connection", templateName: "Politeness" });
      expect(missing.isError).toBe(true);
      expect(missing.content[0]!.text).toContain("connection");

      // update_template with a new judge makes version 2; its kind cannot change.
      const updated = await call(client, "manage_genai_evaluators", { action: "update_template", name: "Politeness", judge: { ...JUDGE, maxOutputTokens: 512 } });
      expect(updated.isError, updated.content[0]?.text).toBeFalsy();
      expect(updated.structuredContent).toMatchObject({ latestVersionNumber: 2, latestVersion: { judge: { maxOutputTokens: 512 } } });
      const rekind = await call(client, "manage_genai_evaluators", { action: "update_template", name: "Politeness", kind: "code" });
      expect(rekind.isError).toBe(true);
      expect(rekind.content[0]!.text).toContain("a template's kind never changes");

      // The workbench validates a judge draft, and a saved llm template.
      const draft = await call(client, "genai_evaluator_workbench", { action: "validate", judge: { messages: [{ role: "user", content: "{{output}} by {{params.nope}}" }], output: JUDGE.output }, paramSpecs: SETTINGS });
      expect(draft.structuredContent).toMatchObject({ valid: false, issues: [{ path: "judge.messages[0].content" }] });
      expect(draft.content[0]!.text).toContain("{{params.nope}} names no declared setting");
      const saved = await call(client, "genai_evaluator_workbench", { action: "validate", templateId: "Politeness" });
      expect(saved.isError, saved.content[0]?.text).toBeFalsy();
      expect(saved.content[0]!.text).toBe("valid: the judge's messages, output definition and settings pass every save rule");

      // try_code of a judge draft calls the connection's model once on the sample.
      await createOperations(createApiClient({ url: service.url, key })).connections.createConnection({ name: "Fake", provider: "openai", baseUrl: fake.baseUrl, defaultModel: "judge-default", apiKey: FAKE_KEY });
      fake.judge = () => ({ reasoning: "courteous", polite: true, tone: "warm" });
      const tried = await call(client, "genai_evaluator_workbench", { action: "try_code", judge: JUDGE, paramSpecs: SETTINGS, connectionName: "Fake", params: { model: "judge-mcp" }, span: { input: [{ role: "user", content: "hi" }], output: "Thank you!" } });
      expect(tried.isError, tried.content[0]?.text).toBeFalsy();
      expect(tried.structuredContent).toMatchObject({ outcome: "ok", scores: [{ name: "polite", value: true }, { name: "tone", value: "warm" }], usage: { model: "judge-mcp", inputTokens: 120, outputTokens: 30, cached: false } });
      expect(tried.content[0]!.text).toContain('scores polite=true, tone="warm"');
      expect(tried.content[0]!.text).toContain("usage judge-mcp, 120 in / 30 out tokens, no price for this model");
    } finally {
      await client.close();
    }
  });
});
