// LLM templates and judge evaluators as saved (issue 30): the judge's rules by field, versions as for
// code (a new judge or settings make N+1, an identical save none, 409 when a following evaluator's
// value breaks), the evaluator's kind from its template, its connection, and a connection in use.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { BadUserInputError, ConflictError } from "../../src/lib/errors.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

const JUDGE = {
  messages: [{ role: "system", content: "You grade replies." }, { role: "user", content: "Grade {{output}} for {{params.audience}}." }],
  output: [
    { name: "helpful", type: "numeric", min: 1, max: 5, higherIsBetter: true },
    { name: "tone", type: "categorical", values: ["warm", "neutral", "cold"] },
  ],
};
const SETTINGS = [{ name: "audience", type: "enum", options: ["adults", "children"], default: "adults" }];

let app: App;
beforeAll(() => {
  app = createTestApp();
});
afterAll(() => app.close());

async function workspace(label: string) {
  const ws = await createTestWorkspace(app, label);
  return { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
}

/** The issues of a refused call, as path → message. */
async function issuesOf(call: Promise<unknown>): Promise<Record<string, string>> {
  const error = await call.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(BadUserInputError);
  return Object.fromEntries((error as BadUserInputError).issues.map((i) => [i.path, i.message]));
}

describe("llm templates", () => {
  it("refuses a judge by field: unknown variables, a stray {{, an undeclared setting, code fields, a reasoning score", async () => {
    const principal = await workspace("judge-template-rules");
    const issues = await issuesOf(
      app.services.templates.createTemplate(principal, {
        name: "Bad judge",
        kind: "llm",
        sourceCode: "def evaluate(ctx): pass",
        params: [{ name: "model", type: "integer", default: 3 }],
        judge: {
          messages: [{ role: "user", content: "{{answer}} and {{params.style}} and {{ broken" }],
          output: [{ name: "reasoning", type: "boolean", higherIsBetter: true }],
        },
      }),
    );
    expect(issues).toEqual({
      sourceCode: "an llm template has no code: give its judge (messages and output)",
      "params[0].type": 'a judge\'s "model" setting names the model: it must be a string, text or enum setting',
      "judge.output[0].name": '"reasoning" is the answer\'s reasoning: give the score another name',
    });
    const variables = await issuesOf(app.services.templates.createTemplate(principal, { name: "Bad vars", kind: "llm", judge: { messages: [{ role: "user", content: "{{answer}} and {{params.style}} and {{ broken" }], output: JUDGE.output } }));
    expect(variables).toEqual({
      "judge.messages[0].content": expect.stringMatching(/^\{\{answer\}\} is not a variable|names no declared setting|does not open a variable/),
    });
    expect(await issuesOf(app.services.templates.createTemplate(principal, { name: "No judge", kind: "llm" }))).toEqual({ judge: "is required for an llm template: {messages, output}" });
    expect(await issuesOf(app.services.templates.createTemplate(principal, { name: "Judge on code", sourceCode: "def evaluate(ctx):\n    return []\n", judge: JUDGE }))).toEqual({ judge: "is for llm templates only: give kind: llm" });
  });

  it("versions a judge as code is versioned, and refuses with 409 settings a following evaluator's value breaks", async () => {
    const principal = await workspace("judge-template-versions");
    const connection = await app.services.connections.createConnection(principal, { name: "Local", provider: "openai", baseUrl: "https://models.example.invalid/v1", defaultModel: "m", apiKey: "sk-test-0123456789abcdef" });
    const created = await app.services.templates.createTemplate(principal, { name: "Grader", kind: "llm", judge: JUDGE, params: SETTINGS });
    expect([created.template.kind, created.latest.version, created.latest.entryPointKind, created.latest.sourceCode]).toEqual(["llm", 1, "judge", ""]);
    expect(created.latest.judge).toEqual({ ...JUDGE, maxOutputTokens: 1024, cacheTtlSeconds: 86400 });

    const same = await app.services.templates.updateTemplate(principal, created.template.id, { judge: JUDGE });
    expect(same.latest.version).toBe(1);
    const v2 = await app.services.templates.updateTemplate(principal, created.template.id, { judge: { ...JUDGE, cacheTtlSeconds: 0 } });
    expect([v2.latest.version, (v2.latest.judge as { cacheTtlSeconds: number }).cacheTtlSeconds]).toEqual([2, 0]);
    // The messages are checked against the new settings too.
    expect(await issuesOf(app.services.templates.updateTemplate(principal, created.template.id, { params: [] }))).toEqual({ "judge.messages[1].content": "{{params.audience}} names no declared setting (declared: none)" });
    expect(await issuesOf(app.services.templates.updateTemplate(principal, created.template.id, { sourceCode: "x = 1" }))).toEqual({ sourceCode: "an llm template has no code: give its judge (messages and output)" });

    // The evaluator is a judge (from its template) and needs a connection.
    expect(await issuesOf(app.services.evaluators.createEvaluator(principal, { name: "No connection", templateId: created.template.id }))).toEqual({ connectionId: "is required for a judge evaluator (give connectionId or connectionName)" });
    const judge = await app.services.evaluators.createEvaluator(principal, { name: "Grader", templateId: created.template.id, connectionId: connection.id, params: { audience: "children" }, maxCostPerHourUsd: 2.5 });
    expect([judge.kind, judge.connectionId, judge.maxCostPerHourUsd]).toEqual(["judge", connection.id, 2.5]);
    const conflict = await app.services.templates.updateTemplate(principal, created.template.id, { params: [{ name: "audience", type: "enum", options: ["adults"], default: "adults" }] }).then(() => null, (e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as ConflictError).message).toContain('"Grader"');

    // A code evaluator takes no connection; a code template makes no judge.
    const code = await app.services.templates.createTemplate(principal, { name: "Code", sourceCode: "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n" });
    expect(await issuesOf(app.services.evaluators.createEvaluator(principal, { name: "Code with connection", templateId: code.template.id, connectionId: connection.id, maxCostPerHourUsd: 1 }))).toEqual({
      connectionId: "a code evaluator calls no model: only judge evaluators take a connection",
      maxCostPerHourUsd: "a code evaluator has no model cost: only judge evaluators take a spend cap",
    });
    expect(await issuesOf(app.services.evaluators.createEvaluator(principal, { name: "Wrong kind", kind: "code", templateId: created.template.id, connectionId: connection.id }))).toEqual({ kind: "the template is an llm template: its evaluators are of kind judge" });

    // An experiment cannot run an llm template "with its defaults": it has no connection.
    await app.services.datasets.importItems(principal, { name: "One" }, (await import("node:stream")).Readable.from([`{"output": "hi"}`]));
    const dataset = await app.prisma.dataset.findFirstOrThrow({ where: { workspaceId: principal.workspaceId, name: "One" } });
    expect(await issuesOf(app.services.experiments.createExperiment(principal, { datasetId: dataset.id, templateIds: [created.template.id] }))).toEqual({
      "templateIds[0]": 'template "Grader" is an llm template: a judge needs a connection; create a judge evaluator of it (with connectionName) and give it in evaluatorIds',
    });

    // A connection a live judge uses is not deleted.
    const refused = await app.services.connections.deleteConnection(principal, { id: connection.id }).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as ConflictError).message).toBe('connection "Local" is used by 1 evaluator(s): "Grader". Move them to another connection or archive them first.');
  });

  it("the retention sweep deletes expired judge answers and keeps live ones", async () => {
    const principal = await workspace("judge-cache-purge");
    const now = Date.now();
    await app.prisma.judgeCacheEntry.createMany({
      data: [
        { key: `expired-${now}`, workspaceId: principal.workspaceId, answer: { reasoning: "r" }, model: "m", expiresAt: new Date(now - 1_000) },
        { key: `live-${now}`, workspaceId: principal.workspaceId, answer: { reasoning: "r" }, model: "m", expiresAt: new Date(now + 3_600_000) },
      ],
    });
    const report = await app.services.retention.sweep();
    expect(report.judgeCacheEntries).toBeGreaterThanOrEqual(1);
    const left = await app.prisma.judgeCacheEntry.findMany({ where: { workspaceId: principal.workspaceId }, select: { key: true } });
    expect(left.map((e) => e.key)).toEqual([`live-${now}`]);
  });
});
