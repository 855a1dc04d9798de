// A provider key never leaves the service (issue 30): not in a GraphQL answer, a log line, /metrics,
// a run's stored error, the block reason, or the sandbox. The provider here echoes the key in its
// 401 message (as OpenAI's "Incorrect API key provided: sk-…" does), and a code evaluator prints
// everything the sandbox can see of its process and environment.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/lib/logger.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { FakeFailure, startOpenAiServer, type FakeProvider } from "../connections/fake-providers.js";
import { createTestWorkspace, graphqlClient } from "../helpers.js";
import { obliterate, waitFor } from "../runs/helpers.js";

const KEY = `sk-proj-${randomBytes(24).toString("base64url")}`;
/** A part of the key long enough that finding it means the key leaked. */
const KEY_PART = KEY.slice(12, 36);

/** Prints what the sandbox can read of its process: the environment, /proc, the document. */
const SNOOP = `import os


def evaluate(ctx):
    seen = {"environ": dict(os.environ)}
    for path in ["/proc/self/environ", "/proc/1/environ", "/proc/self/cmdline"]:
        try:
            with open(path, "rb") as handle:
                seen[path] = handle.read().decode("latin1")
        except Exception as error:
            seen[path] = repr(error)
    print(repr(seen))
    print(repr(ctx.document))
    return EvaluationResult(scores=[Score(name="looked", value=True)])
`;

const JUDGE = { messages: [{ role: "user", content: "Rate:\n{{output}}" }], output: [{ name: "good", type: "boolean", higherIsBetter: true }] };

let app: App;
let workers: Workers;
let provider: FakeProvider;
let prefix: string;
const lines: string[] = [];

beforeAll(async () => {
  provider = await startOpenAiServer(KEY);
  prefix = `oodle-test-judge-secrets-${randomUUID().slice(0, 8)}`;
  app = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: prefix, CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" }), { logger: createLogger("trace", { write: (line: string) => void lines.push(line) }) });
  workers = await startWorkers(app, { queues: ["evaluate-target", "evaluation-barrier"] });
});
afterAll(async () => {
  await workers.close();
  await obliterate(app, prefix);
  await app.close();
  await provider.close();
});

describe("a judge's provider key", () => {
  it("appears in no answer, log line, metric, stored run, block reason or sandbox", async () => {
    const ws = await createTestWorkspace(app, "judge-secrets");
    const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
    const gql = graphqlClient(app);
    const answers: string[] = [];
    const ask = async (query: string, variables: Record<string, unknown> = {}) => {
      const answer = await gql.request(query, variables, ws.secret);
      answers.push(JSON.stringify(answer));
      return answer;
    };
    const created = await ask(`mutation($input: CreateConnectionInput!) { createConnection(input: $input) { connection { id name keyHint } } }`, {
      input: { name: "Local", provider: "openai", baseUrl: provider.baseUrl, defaultModel: "judge-secret", apiKey: KEY },
    });
    expect(created.errors).toBeUndefined();
    await ask(`mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id kind } } }`, { input: { name: "Rater", kind: "llm", judge: JUDGE } });
    const judge = await ask(`mutation { createEvaluator(input: { name: "Rater", templateName: "Rater", connectionName: "Local" }) { evaluator { id kind connection { name keyHint } } } }`);
    expect(judge.errors).toBeUndefined();
    expect(judge.data!.createEvaluator.evaluator.kind).toBe("judge");
    const snoop = await app.services.templates.createTemplate(principal, { name: "Snoop", sourceCode: SNOOP });
    const snooper = await app.services.evaluators.createEvaluator(principal, { name: "Snoop", templateId: snoop.template.id, dependencies: [{ evaluator: "Rater" }] });

    // The provider refuses the key and echoes it.
    provider.judge = (body) => new FakeFailure(401, `Incorrect API key provided: ${KEY}. Body had ${JSON.stringify(body).length} bytes.`);
    await app.services.spans.ingestSpans(principal, [{ traceId: "t-secret", spanId: "s1", name: "chat", kind: "chat", input: "hi", output: "hello" }]);
    await waitFor(() => app.prisma.run.count({ where: { evaluatorId: snooper.id } }), 1);

    const runs = await app.prisma.run.findMany({ where: { workspaceId: ws.workspace.id } });
    expect(runs.map((r) => r.outcome).sort()).toEqual(["ok", "sandbox_error"]);
    const judgeRun = runs.find((r) => r.outcome === "sandbox_error")!;
    expect(judgeRun.errorType).toBe("ProviderError:invalid_key");
    expect(judgeRun.errorMessage).toContain("Incorrect API key provided");
    const blocked = await app.prisma.evaluator.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, name: "Rater" } });
    expect(blocked.blockedReason).toMatch(/^invalid_key from connection "Local": /);

    // A draft of the judge through tryCode, and the reads a user would make.
    const connectionId = created.data!.createConnection.connection.id;
    const tried = await ask(`mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome error { type message } usage { model } } }`, { input: { judge: JUDGE, connectionId, document: { output: "x" } } });
    expect(tried.data?.tryCode.error.message, JSON.stringify(tried.errors)).toContain("Incorrect API key provided");
    for (const query of [
      `{ evaluators(first: 10) { edges { node { name blockedReason connection { keyHint } stats { blockedReason judge { calls } } } } } }`,
      `{ runs(first: 10) { edges { node { outcome stdout stderr error { type message } usage { model } } } } }`,
      `{ connections(first: 10) { edges { node { name keyHint } } } }`,
    ]) expect((await ask(query)).errors, query).toBeUndefined();
    const metrics = (await app.metrics.scrape()).body;

    const sandboxSaw = runs.find((r) => r.evaluatorId === snooper.id)!;
    expect(sandboxSaw.stdout).toContain("environ");
    // The sealing key of CONNECTION_KEYS (id:base64), as the test environment sets it.
    const keyRing = process.env.CONNECTION_KEYS!.split(":")[1]!;
    expect(keyRing.length).toBeGreaterThan(20);
    const places: [string, string][] = [
      ["GraphQL answers", answers.join("\n")],
      ["log lines", lines.join("\n")],
      ["/metrics", metrics],
      ["stored runs", JSON.stringify(runs)],
      ["block reason", blocked.blockedReason ?? ""],
      ["the sandbox's view", sandboxSaw.stdout + sandboxSaw.stderr],
    ];
    // The checks can fail: the logs hold the provider's message (the block), the answers hold the connection.
    expect(lines.join("\n")).toContain("Incorrect API key provided");
    expect(answers.join("\n")).toContain(KEY.slice(-4));
    for (const [where, text] of places) {
      expect(text.includes(KEY_PART), `${where} holds the provider key`).toBe(false);
      expect(text.includes(keyRing), `${where} holds the key ring`).toBe(false);
    }
    expect(provider.requests.some((r) => r.credential === KEY)).toBe(true);
  });
});
