import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTemplateYaml } from "../../src/cli/template-yaml.js";
import { startOpenAiServer, type FakeProvider } from "../connections/fake-providers.js";
import { cliRunner, serviceForThisFile } from "./service.js";

// LLM judges from the `oodle` CLI (docs/judges.md): an llm template from a file, its folder
// (judge.yaml instead of evaluate.py) pulled, pushed and tried, and a judge evaluator with a
// connection and a spend cap. The one provider is a loopback fake OpenAI server
// (test/connections/fake-providers.ts), called only by `templates test` and `try`.
const service = serviceForThisFile({ CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" });
const FAKE_KEY = "sk-test-cli-judges-fake-0123456789";
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startOpenAiServer(FAKE_KEY);
});
afterAll(async () => {
  await fake.close();
});

const T = 300_000;

const PROMPT = "Is this reply polite?\nReply:\n{{output}}\nRubric: {{params.rubric}}";
const JUDGE_YAML = `messages:
  - role: system
    content: You grade customer-support replies.
  - role: user
    content: |-
      Is this reply polite?
      Reply:
      {{output}}
      Rubric: {{params.rubric}}
output:
  - name: polite
    type: boolean
    higherIsBetter: true
    description: The reply is polite.
`;
const SETTINGS = JSON.stringify([
  { name: "model", type: "string", default: "gpt-4o-mini" },
  { name: "rubric", type: "string", default: "Polite means courteous." },
]);

function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

async function judgeSetup() {
  const { key } = await service.workspace("cli-judges");
  const oodle = cliRunner(service, key);
  const dir = tempDir("oodle-judge-");
  writeFileSync(join(dir, "polite.yaml"), JUDGE_YAML);
  const created = await oodle(["--json", "genai", "templates", "create", "Politeness", "--judge", join(dir, "polite.yaml"), "--params", SETTINGS]);
  expect(created.exitCode, created.stderr).toBe(0);
  return { oodle, dir, created: JSON.parse(created.stdout) };
}

describe("llm templates from the CLI", () => {
  it("templates create NAME --judge FILE makes an llm template; get prints its kind, output definition and messages", { timeout: T }, async () => {
    const { oodle, created } = await judgeSetup();
    expect(created).toMatchObject({ name: "Politeness", kind: "llm", latestVersionNumber: 1, latestVersion: { sourceCode: "", entryPoint: { kind: "judge", name: "judge" } } });
    // The stored judge: the file's messages and output, the defaults filled.
    expect(created.latestVersion.judge).toEqual({
      messages: [
        { role: "system", content: "You grade customer-support replies." },
        { role: "user", content: PROMPT },
      ],
      output: [{ name: "polite", type: "boolean", higherIsBetter: true, description: "The reply is polite." }],
      maxOutputTokens: 1024,
      cacheTtlSeconds: 86400,
    });

    const get = await oodle(["genai", "templates", "get", "Politeness"]);
    expect(get.exitCode, get.stderr).toBe(0);
    expect(get.stdout).toMatch(/^kind:\s+llm \(a judge/m);
    expect(get.stdout).toContain("settings:\n  model (string, default \"gpt-4o-mini\")\n  rubric (string, default \"Polite means courteous.\")");
    expect(get.stdout).toContain("max output tokens: 1024; cache: 86400 s");
    expect(get.stdout).toContain("output:\n  polite (boolean, higher is better): The reply is polite.");
    expect(get.stdout).toContain("messages:\n  [0] system:\n    You grade customer-support replies.\n  [1] user:\n    Is this reply polite?\n    Reply:\n    {{output}}\n    Rubric: {{params.rubric}}");

    const list = await oodle(["genai", "templates", "list"]);
    expect(list.stdout.split("\n").find((l) => l.startsWith("Politeness"))).toMatch(/^Politeness\s+llm\s+1\s+model, rubric\s/);

    // --file with judgeFile (relative to it): the same judge from a template file.
    const fileDir = tempDir("oodle-judge-file-");
    writeFileSync(join(fileDir, "polite.yaml"), JUDGE_YAML);
    writeFileSync(join(fileDir, "template.yaml"), `name: "From file"\nkind: llm\njudgeFile: polite.yaml\nparams: ${SETTINGS}\n`);
    const fromFile = await oodle(["--json", "genai", "templates", "create", "--file", join(fileDir, "template.yaml")]);
    expect(fromFile.exitCode, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ name: "From file", kind: "llm", latestVersion: { judge: created.latestVersion.judge } });

    // A JSON file works as well; a judge with a variable of no setting is refused, naming the field.
    const dir = tempDir("oodle-judge-json-");
    writeFileSync(join(dir, "j.json"), JSON.stringify({ messages: [{ role: "user", content: "Grade {{output}} by {{params.nope}}" }], output: [{ name: "ok", type: "boolean", higherIsBetter: true }] }));
    const bad = await oodle(["--json", "genai", "templates", "create", "Bad judge", "--judge", join(dir, "j.json")]);
    expect(bad.exitCode).toBe(2);
    const error = JSON.parse(bad.stderr).error;
    expect(error.code).toBe("BAD_USER_INPUT");
    expect(error.field).toBe("judge.messages[0].content");
    expect(error.message).toContain("{{params.nope}} names no declared setting");
    // --source and --judge together are refused before anything is sent.
    writeFileSync(join(dir, "x.py"), "def evaluate(ctx):\n    return []\n");
    const both = await oodle(["--json", "genai", "templates", "create", "Both", "--judge", join(dir, "j.json"), "--source", join(dir, "x.py")]);
    expect(both.exitCode).toBe(2);
    expect(JSON.parse(both.stderr).error.field).toBe("--judge");
  });

  it("pull writes judge.yaml (no evaluate.py); push of the unchanged folder makes no version, of an edit version 2; a new folder creates an llm template", { timeout: T }, async () => {
    const { oodle } = await judgeSetup();
    const dir = join(tempDir("oodle-judge-pull-"), "polite");
    const pulled = await oodle(["--json", "genai", "templates", "pull", "Politeness", dir]);
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    expect(JSON.parse(pulled.stdout).files).toEqual(["judge.yaml", "template.yaml", "oodle.lock.json"]);
    expect(existsSync(join(dir, "evaluate.py"))).toBe(false);
    const judgeText = readFileSync(join(dir, "judge.yaml"), "utf8");
    // The prompt reads as the text it is: a literal block, not one escaped line.
    expect(judgeText).toContain("    content: |-\n      Is this reply polite?\n      Reply:\n      {{output}}\n      Rubric: {{params.rubric}}\n");
    expect(readTemplateYaml(judgeText)).toEqual({
      messages: [
        { role: "system", content: "You grade customer-support replies." },
        { role: "user", content: PROMPT },
      ],
      output: [{ name: "polite", type: "boolean", description: "The reply is polite.", higherIsBetter: true }],
      maxOutputTokens: 1024,
      cacheTtlSeconds: 86400,
    });
    expect(readTemplateYaml(readFileSync(join(dir, "template.yaml"), "utf8"))).toEqual({
      name: "Politeness",
      settings: [
        { name: "model", type: "string", default: "gpt-4o-mini" },
        { name: "rubric", type: "string", default: "Polite means courteous." },
      ],
    });
    const lock = JSON.parse(readFileSync(join(dir, "oodle.lock.json"), "utf8"));
    expect(lock).toMatchObject({ template: { name: "Politeness", version: 1 }, libraries: {} });
    expect(lock.template.sha256).toMatch(/^[0-9a-f]{64}$/);

    const validated = await oodle(["genai", "templates", "validate", dir]);
    expect(validated.exitCode, validated.stderr).toBe(0);
    expect(validated.stdout.trim()).toBe("ok: judge.yaml has 2 message(s) and 1 score(s) (polite); 2 setting(s)");

    const same = await oodle(["--json", "genai", "templates", "push", dir]);
    expect(same.exitCode, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ template: { version: 1 }, created: false, newVersion: false });

    // An edit: a second score, a shorter cache. push saves version 2 with exactly that judge.
    const edited = judgeText.replace("cacheTtlSeconds: 86400", "cacheTtlSeconds: 600") + "";
    const withScore = edited.replace(
      "output:\n",
      'output:\n  - name: "warmth"\n    type: "numeric"\n    min: 1\n    max: 5\n    higherIsBetter: true\n',
    );
    writeFileSync(join(dir, "judge.yaml"), withScore);
    const pushed = await oodle(["--json", "genai", "templates", "push", dir]);
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout)).toMatchObject({ template: { version: 2 }, created: false, newVersion: true, published: [] });
    expect(JSON.parse(readFileSync(join(dir, "oodle.lock.json"), "utf8")).template.version).toBe(2);
    const v2 = JSON.parse((await oodle(["--json", "genai", "templates", "get", "Politeness"])).stdout);
    expect(v2.latestVersion.judge.output).toEqual([
      { name: "warmth", type: "numeric", min: 1, max: 5, higherIsBetter: true },
      { name: "polite", type: "boolean", higherIsBetter: true, description: "The reply is polite." },
    ]);
    expect(v2.latestVersion.judge.cacheTtlSeconds).toBe(600);
    // Pulled again, the folder is what was pushed (the round trip keeps every field).
    const again = join(tempDir("oodle-judge-again-"), "polite");
    expect((await oodle(["genai", "templates", "pull", "Politeness", again])).exitCode).toBe(0);
    expect(readTemplateYaml(readFileSync(join(again, "judge.yaml"), "utf8"))).toEqual(readTemplateYaml(withScore));

    // A problem is named by its file and field; nothing is saved.
    writeFileSync(join(dir, "judge.yaml"), withScore.replace("{{params.rubric}}", "{{params.tone}}"));
    const refused = await oodle(["--json", "genai", "templates", "push", dir]);
    expect(refused.exitCode).toBe(2);
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: "BAD_USER_INPUT", field: "judge.yaml messages[1].content" });
    const check = await oodle(["--json", "genai", "templates", "validate", dir]);
    expect(check.exitCode).toBe(2);
    expect(JSON.parse(check.stdout)).toMatchObject({ valid: false, kind: "llm", issues: [{ field: "judge.yaml messages[1].content", apiField: "judge.messages[1].content" }] });
    expect((JSON.parse((await oodle(["--json", "genai", "templates", "get", "Politeness"])).stdout) as { latestVersionNumber: number }).latestVersionNumber).toBe(2);

    // A folder written by hand (no lock): push creates an llm template.
    const fresh = tempDir("oodle-judge-fresh-");
    writeFileSync(join(fresh, "judge.yaml"), JUDGE_YAML);
    writeFileSync(join(fresh, "template.yaml"), 'name: "Fresh judge"\nsettings:\n  - name: rubric\n    type: string\n    default: "Be kind."\n  - name: temperature\n    type: number\n    default: 0\n');
    const createdFresh = await oodle(["--json", "genai", "templates", "push", fresh]);
    expect(createdFresh.exitCode, createdFresh.stderr).toBe(0);
    expect(JSON.parse(createdFresh.stdout)).toMatchObject({ template: { name: "Fresh judge", version: 1 }, created: true });
    const freshTemplate = JSON.parse((await oodle(["--json", "genai", "templates", "get", "Fresh judge"])).stdout);
    expect(freshTemplate).toMatchObject({ kind: "llm", latestVersion: { judge: { messages: [{ role: "system" }, { role: "user", content: PROMPT }] } } });

  });

  it("refuses a folder with both evaluate.py and judge.yaml, and a judge folder pushed over a code template", { timeout: T }, async () => {
    const { oodle } = await judgeSetup();
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
    const codeDir = join(tempDir("oodle-judge-code-"), "kw");
    expect((await oodle(["genai", "templates", "pull", "Keyword check", codeDir])).exitCode).toBe(0);
    // Pulling an llm template into a code template's folder is refused (it would hold both).
    const into = await oodle(["--json", "genai", "templates", "pull", "Politeness", codeDir]);
    expect(into.exitCode).toBe(2);
    expect(JSON.parse(into.stderr).error.field).toBe("evaluate.py");
    writeFileSync(join(codeDir, "judge.yaml"), JUDGE_YAML);
    const both = await oodle(["--json", "genai", "templates", "push", codeDir]);
    expect(both.exitCode).toBe(2);
    expect(JSON.parse(both.stderr).error.message).toContain("holds both evaluate.py and judge.yaml");

    // A judge folder named like the code template: the kind never changes, even with --force.
    const judgeDir = tempDir("oodle-judge-over-");
    mkdirSync(judgeDir, { recursive: true });
    writeFileSync(join(judgeDir, "judge.yaml"), JUDGE_YAML);
    writeFileSync(join(judgeDir, "template.yaml"), 'name: "Keyword check"\nsettings:\n  - name: rubric\n    type: string\n');
    const over = await oodle(["--json", "genai", "templates", "push", judgeDir, "--force"]);
    expect(over.exitCode).toBe(2);
    const error = JSON.parse(over.stderr).error;
    expect(error.field).toBe("judge.yaml");
    expect(error.message).toContain('template "Keyword check" is a code template on the server');
  });

  it("evaluators create --connection --max-cost-per-hour makes a judge; get shows the connection and the spend cap; update changes and removes the cap", { timeout: T }, async () => {
    const { oodle } = await judgeSetup();
    const connection = await oodle(["genai", "connections", "create", "Local", "--provider", "openai", "--model", "judge-default", "--base-url", "http://127.0.0.1:9/v1", "--max-concurrent-requests", "2", "--api-key-env", "JUDGE_TEST_KEY"], {
      JUDGE_TEST_KEY: "sk-test-judges-0123456789",
    });
    expect(connection.exitCode, connection.stderr).toBe(0);

    const created = await oodle(["--json", "genai", "evaluators", "create", "--name", "Politeness judge", "--template", "Politeness", "--connection", "Local", "--max-cost-per-hour", "2.5", "--params", '{"rubric": "Thanks count."}']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      name: "Politeness judge",
      kind: "judge",
      template: { name: "Politeness", kind: "llm" },
      connection: { name: "Local", provider: "openai", defaultModel: "judge-default", maxConcurrentRequests: 2 },
      maxCostPerHourUsd: 2.5,
      resolvedParams: { model: "gpt-4o-mini", rubric: "Thanks count." },
    });

    const get = await oodle(["genai", "evaluators", "get", "Politeness judge"]);
    expect(get.exitCode, get.stderr).toBe(0);
    expect(get.stdout).toMatch(/^kind:\s+judge$/m);
    expect(get.stdout).toMatch(/^template:\s+Politeness \(llm: a judge\)$/m);
    expect(get.stdout).toMatch(/^connection:\s+Local \(openai, default model judge-default, 2 request\(s\) at once\)$/m);
    expect(get.stdout).toMatch(/^spend cap:\s+\$2\.5 per rolling hour$/m);

    const raised = await oodle(["--json", "genai", "evaluators", "update", "Politeness judge", "--max-cost-per-hour", "10"]);
    expect(raised.exitCode, raised.stderr).toBe(0);
    expect(JSON.parse(raised.stdout).maxCostPerHourUsd).toBe(10);
    const removed = await oodle(["--json", "genai", "evaluators", "update", "Politeness judge", "--max-cost-per-hour", "none"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ maxCostPerHourUsd: null, connection: { name: "Local" } });
    expect((await oodle(["genai", "evaluators", "get", "Politeness judge"])).stdout).toMatch(/^spend cap:\s+none$/m);

    // A cap the API refuses names the flag; so does a word that is not a number.
    const negative = await oodle(["--json", "genai", "evaluators", "update", "Politeness judge", "--max-cost-per-hour", "-1"]);
    expect(negative.exitCode).toBe(2);
    expect(JSON.parse(negative.stderr).error.field).toBe("--max-cost-per-hour");
    const word = await oodle(["--json", "genai", "evaluators", "update", "Politeness judge", "--max-cost-per-hour", "lots"]);
    expect(word.exitCode).toBe(2);
    expect(JSON.parse(word.stderr).error.field).toBe("--max-cost-per-hour");

    // A judge without a connection, or with one that does not exist, is refused naming --connection.
    const none = await oodle(["--json", "genai", "evaluators", "create", "--name", "No connection", "--template", "Politeness"]);
    expect(none.exitCode).toBe(2);
    expect(JSON.parse(none.stderr).error.field).toBe("--connection");
    const unknown = await oodle(["--json", "genai", "evaluators", "create", "--name", "Unknown connection", "--template", "Politeness", "--connection", "Nope"]);
    expect(unknown.exitCode, unknown.stderr).not.toBe(0);
    expect(JSON.parse(unknown.stderr).error.message).toContain("Nope");

    // Cascades (docs/judges.md § Cascades): a code check gates the judge (--file with the gate),
    // and a code evaluator that reads the judge's score with ctx.score depends on it (inferred).
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
    expect((await oodle(["genai", "evaluators", "create", "--name", "Refund mentioned", "--template", "Keyword check", "--params", '{"required": ["refund"]}'])).exitCode).toBe(0);
    const dir = tempDir("oodle-judge-cascade-");
    writeFileSync(join(dir, "gate.yaml"), 'dependencies: [{evaluator: "Refund mentioned", gate: {score: "keywords_ok"}}]\n');
    const gated = await oodle(["--json", "genai", "evaluators", "create", "--name", "Gated judge", "--template", "Politeness", "--connection", "Local", "--file", join(dir, "gate.yaml")]);
    expect(gated.exitCode, gated.stderr).toBe(0);
    expect(JSON.parse(gated.stdout)).toMatchObject({ kind: "judge", dependencies: [{ dependsOn: { name: "Refund mentioned" }, gate: { score: "keywords_ok" } }] });
    writeFileSync(join(dir, "escalate.py"), 'def evaluate(ctx):\n    polite = ctx.score("Politeness judge", "polite", default=None)\n    return EvaluationResult(scores=[Score(name="escalate", value=polite is False)])\n');
    expect((await oodle(["genai", "templates", "create", "--name", "Escalate", "--source", join(dir, "escalate.py")])).exitCode).toBe(0);
    const reader = await oodle(["--json", "genai", "evaluators", "create", "--name", "Escalate", "--template", "Escalate"]);
    expect(reader.exitCode, reader.stderr).toBe(0);
    expect(JSON.parse(reader.stdout)).toMatchObject({ kind: "code", dependencies: [{ dependsOn: { name: "Politeness judge" }, gate: null }] });
  });

  it("templates test DIR --connection and try --template --connection call the judge once on a sample, printing its scores and usage", { timeout: T }, async () => {
    const { oodle } = await judgeSetup();
    const made = await oodle(["genai", "connections", "create", "Fake", "--provider", "openai", "--model", "judge-default", "--base-url", fake.baseUrl, "--api-key-env", "FAKE_KEY"], { FAKE_KEY });
    expect(made.exitCode, made.stderr).toBe(0);
    const dir = join(tempDir("oodle-judge-test-"), "polite");
    expect((await oodle(["genai", "templates", "pull", "Politeness", dir])).exitCode).toBe(0);
    writeFileSync(join(dir, "span.json"), JSON.stringify({ input: [{ role: "user", content: "Where is my order?" }], output: "Thanks for waiting! It ships today." }));
    fake.judge = (body) => {
      const user = (body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content;
      return { reasoning: "it thanks the customer", polite: /<<<DATA output [0-9a-f]{32}>>>\nThanks/.test(user) };
    };
    const before = fake.requests.length;

    const tested = await oodle(["genai", "templates", "test", dir, "--connection", "Fake", "--span", join(dir, "span.json"), "--params", '{"model": "judge-polite"}']);
    expect(tested.exitCode, tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^outcome: ok/);
    expect(tested.stdout).toMatch(/polite\s+true\s+BOOLEAN\s+it thanks the customer/);
    expect(tested.stdout).toContain("usage: judge-polite, 120 in / 30 out tokens, no price for this model");
    expect(fake.requests.length - before).toBe(1);
    const sent = fake.requests.at(-1)!.body as { model: string; response_format: { json_schema: { name: string; strict: boolean } } };
    expect([sent.model, sent.response_format.json_schema.name, sent.response_format.json_schema.strict]).toEqual(["judge-polite", "record_scores", true]);

    // The saved template through `try`, as JSON: the same answer and its usage.
    const tried = await oodle(["--json", "genai", "try", "--template", "Politeness", "--connection", "Fake", "--span", join(dir, "span.json"), "--params", '{"model": "judge-polite"}']);
    expect(tried.exitCode, tried.stderr).toBe(0);
    expect(JSON.parse(tried.stdout)).toMatchObject({ outcome: "ok", scores: [{ name: "polite", value: true }], usage: { model: "judge-polite", inputTokens: 120, outputTokens: 30 } });

    // Without --connection a judge folder is refused before any call.
    const missing = await oodle(["--json", "genai", "templates", "test", dir, "--span", join(dir, "span.json")]);
    expect(missing.exitCode).toBe(2);
    expect(JSON.parse(missing.stderr).error.field).toBe("--connection");
    expect(fake.requests.length - before).toBe(2);
  });
});
