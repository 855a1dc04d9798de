// LLM starters (issue 30): built-in judges that save as llm templates, list with their judge, and
// run in tryCode against a connection, as code starters do in the sandbox.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listStarters } from "../../src/modules/templates/starters/index.js";
import { startOpenAiServer, type FakeProvider } from "../connections/fake-providers.js";
import { liveHarness } from "../runs/helpers.js";

const KEY = `sk-proj-${randomBytes(24).toString("base64url")}`;
let h: Awaited<ReturnType<typeof liveHarness>>;
let provider: FakeProvider;

beforeAll(async () => {
  provider = await startOpenAiServer(KEY);
  h = await liveHarness({ label: "judge-starters", startWorker: false, env: { CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" } });
});
afterAll(async () => {
  await h.close();
  await provider.close();
});

describe("llm starters", () => {
  it("save as llm templates with their judge and settings, list with their kind, and run in tryCode against a connection", async () => {
    const ws = await h.workspace("judge-starters");
    const judges = listStarters().filter((s) => s.judge);
    expect(judges.map((s) => s.id)).toEqual(["politeness-judge", "faithfulness-judge"]);
    for (const starter of judges) {
      const saved = await h.app.services.templates.createTemplateFromStarter(ws.principal, starter.id);
      expect([saved.template.kind, saved.latest.entryPointKind, saved.latest.sourceCode]).toEqual(["llm", "judge", ""]);
      expect(saved.latest.judge).toMatchObject(starter.judge!);
      expect((saved.latest.params as { name: string }[]).map((p) => p.name)).toEqual(starter.params.map((p) => p.name));
    }
    const listed = await ws.gql(`{ starter(id: "politeness-judge") { kind judge sourceCode file } }`);
    expect(listed.errors).toBeUndefined();
    expect(listed.data!.starter).toMatchObject({ kind: "llm", sourceCode: "" });
    expect(listed.data!.starter.judge.output.map((o: { name: string }) => o.name)).toEqual(["polite", "courtesy"]);
    expect(listed.data!.starter.file).toContain('"polite"');

    const connection = await h.app.services.connections.createConnection(ws.principal, { name: "Local", provider: "openai", baseUrl: provider.baseUrl, defaultModel: "judge-starter", apiKey: KEY });
    provider.judge = () => ({ reasoning: "courteous", polite: true, courtesy: 4 });
    const tried = await h.app.services.tryCode.tryCode(ws.principal, { starterId: "politeness-judge", connectionId: connection.id, document: { input: "Where is my order?", output: "Thank you for waiting, it ships today." } });
    expect([tried.outcome, tried.scores.map((s) => [s.name, s.value]), tried.usage?.model]).toEqual(["ok", [["polite", true], ["courtesy", 4]], "judge-starter"]);
    const prompt = (provider.requests.at(-1)!.body.messages as { role: string; content: string }[]).map((m) => m.content).join("\n");
    expect(prompt).toContain("Rubric: Polite means courteous, respectful and free of blame or sarcasm.");
  });
});
