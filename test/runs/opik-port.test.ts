// Opik metrics port (docs/sandbox.md § Entry points). Opik's own ConversationThreadMetric example (its docstring in
// comet-ml/opik) is saved as a template and scores a live span; the module
// opik.evaluation.metrics.conversation.types imports in the sandbox; the cookbook's Opik recipe keeps
// ConversationDegenerationMetric's direction (lower is better), so the stored score says so and an
// experiment's pass rate counts healthy conversations as passes. Through GraphQL, the queues and the sandbox.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_PLUS_OWN_OPIK } from "../fixtures/cookbook-recipes.js";
import { OPIK_THREAD_EXAMPLE } from "../fixtures/opik-examples.js";
import { importFile, waitForExperiment } from "../experiments/helpers.js";
import { liveHarness, waitFor } from "./helpers.js";


/** Healthy support chats (degeneration 0.0 by Opik's formula: no repeated trigram, no stock phrase). */
const HEALTHY = [
  { id: "h1", input: [{ role: "user", content: "My parcel arrived damaged." }], output: "Sorry about that: we will send a refund to your card today.", expected_output: null, context: null, tool_calls: null, metadata: {} },
  { id: "h2", input: [{ role: "user", content: "Where is my order?" }], output: "It left our warehouse on Monday and should reach you by Thursday.", expected_output: null, context: null, tool_calls: null, metadata: {} },
];

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "opik", queues: ["evaluate-target", "experiment-batch"] });
});
afterAll(() => h.close());

const CREATE_TEMPLATE = `mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id name latestVersion { entryPoint { kind name } } } } }`;

describe("Opik metrics port", () => {
  it("accepts Opik's ConversationThreadMetric example as an entry point and runs it on a live span", async () => {
    const ws = await h.workspace();
    const created = await ws.gql(CREATE_TEMPLATE, { input: { name: "Conversation length", sourceCode: OPIK_THREAD_EXAMPLE } });
    expect(created.errors).toBeUndefined();
    expect(created.data!.createTemplate.template.latestVersion.entryPoint).toEqual({ kind: "opik", name: "ConversationLengthMetric" });
    const ev = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Length", templateId: Buffer.from(created.data!.createTemplate.template.id, "base64").toString().split(":")[1] });
    const res = await ws.gql(`mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued } }`, {
      input: {
        spans: [
          {
            traceId: "opik",
            spanId: "s1",
            name: "chat",
            input: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "user", content: "and?" }],
            output: "that is all",
          },
        ],
      },
    });
    expect(res.data!.ingestSpans.evaluationsQueued).toBe(1);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: ev.id } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: ev.id }, include: { scores: true } });
    expect(run.errorMessage).toBeNull();
    expect(run.outcome).toBe("ok");
    expect(run.scores.map((s) => [s.name, s.value, s.comment, s.higherIsBetter])).toEqual([["conversation_length_score", 2, "Conversation has 2 turns", true]]);
  });

  it("imports opik.evaluation.metrics.conversation.types in the sandbox", async () => {
    const ws = await h.workspace();
    const source = `from opik.evaluation.metrics.conversation import types


def evaluate(ctx):
    turn = types.ConversationTurn(input={"role": "user", "content": "q"}, output={"role": "assistant", "content": "a"})
    return EvaluationResult(scores=[Score(name="messages", value=len(turn.as_list()))])
`;
    const draft = await h.app.services.tryCode.tryCode(ws.principal, { sourceCode: source, document: { input: "q", output: "a" } });
    expect(draft.error).toBeNull();
    expect(draft.scores.map((s) => [s.name, s.value])).toEqual([["messages", 2]]);
  });

  it("stores ConversationDegenerationMetric as lower-is-better, so an experiment's pass rate counts healthy chats as passes", async () => {
    const ws = await h.workspace();
    const { template } = await h.app.services.templates.createTemplate(ws.principal, { name: "Opik support reply", sourceCode: BUILTIN_PLUS_OWN_OPIK });
    const ev = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Support reply", templateId: template.id });
    const file = join(mkdtempSync(join(tmpdir(), "opik-")), "items.jsonl");
    writeFileSync(file, HEALTHY.map((i) => JSON.stringify(i)).join("\n") + "\n");
    const report = await importFile(h.app, ws.principal, "healthy chats", file);
    const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
    const exp = await ws.gql(`mutation($input: CreateExperimentInput!) { createExperiment(input: $input) { experiment { id } } }`, {
      input: { datasetId: gid("Dataset", report.datasetId), evaluatorIds: [gid("Evaluator", ev.id)] },
    });
    expect(exp.errors).toBeUndefined();
    const experimentId = Buffer.from(exp.data!.createExperiment.experiment.id, "base64").toString().split(":")[1]!;
    await waitForExperiment(h.app, experimentId, 120_000);
    const scores = await h.app.prisma.score.findMany({ where: { run: { experimentId } }, orderBy: [{ name: "asc" }] });
    const degeneration = scores.filter((s) => s.name === "conversation_degeneration_metric");
    expect(degeneration.map((s) => s.higherIsBetter)).toEqual([false, false]);
    for (const s of degeneration) expect(s.value as number).toBeCloseTo(0, 10); // Opik's formula gives 0 up to rounding
    const summary = await ws.gql(`query($id: ID!) { node(id: $id) { ... on Experiment { summary { name passRate passed count } } } }`, { id: exp.data!.createExperiment.experiment.id });
    expect(summary.errors).toBeUndefined();
    const byName = Object.fromEntries(summary.data!.node.summary.map((s: { name: string; passRate: number }) => [s.name, s.passRate]));
    // Both chats are healthy (degeneration 0.0, lower is better) and mention a refund only in h1.
    expect(byName).toEqual({ conversation_degeneration_metric: 1, mentions_refund: 0.5 });
  });
});
