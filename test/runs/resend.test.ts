// Re-sent spans (docs/evaluation.md § Which spans an evaluator runs on). Sending stored spans again evaluates them for an evaluator
// created since (and only for it), and its stats count those spans as matched once: no
// "spansMatched 0, runs 10". Through GraphQL ingest, the queue, the worker and the sandbox.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness, waitFor } from "./helpers.js";

const WORDS = `from oodle_eval.v1 import text


def evaluate(ctx):
    return EvaluationResult(scores=[Score(name="words", value=len(text.reply(ctx).split()))])
`;

const INGEST = `mutation($spans: [JSON!]!) { ingestSpans(input: { spans: $spans }) { spans { created } evaluationsQueued } }`;
const STATS = `query($id: ID!) { node(id: $id) { ... on Evaluator { stats { spansMatched skippedAttributes runs pending } } } }`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "resend" });
});
afterAll(() => h.close());

describe("re-sent spans", () => {
  it("run for an evaluator created since, once, and count as matched for it", async () => {
    const ws = await h.workspace();
    const { template } = await h.app.services.templates.createTemplate(ws.principal, { name: "Words", sourceCode: WORDS });
    const first = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "First", templateId: template.id });
    const spans = Array.from({ length: 10 }, (_, i) => ({ traceId: "resend", spanId: `s${i}`, name: "chat", input: [{ role: "user", content: "hi" }], output: "one two three".split(" ").slice(0, 1 + (i % 3)).join(" ") }));
    const sent = await ws.gql(INGEST, { spans });
    expect(sent.data!.ingestSpans.evaluationsQueued).toBe(10);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: first.id } }), 10);

    // A new evaluator, and one whose rule leaves the spans out; then the same spans again.
    const later = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Later", templateId: template.id });
    const other = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Other channel", templateId: template.id, attributeEquals: { "app.channel": "sales" } });
    const again = await ws.gql(INGEST, { spans });
    expect(again.errors).toBeUndefined();
    expect(again.data!.ingestSpans.spans.every((s: { created: boolean }) => !s.created)).toBe(true);
    expect(again.data!.ingestSpans.evaluationsQueued).toBe(10); // "Later" only: "First" ran on them
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: later.id } }), 10);
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: later.id }, include: { span: true, scores: true } });
    const words = runs.map((r) => [r.span!.spanId, r.scores[0]!.value]).sort(([a], [b]) => String(a).localeCompare(String(b)));
    expect(words).toEqual(spans.map((s) => [s.spanId, s.output.split(" ").length]));

    // A third send: nothing new runs and nothing is counted twice.
    const third = await ws.gql(INGEST, { spans });
    expect(third.data!.ingestSpans.evaluationsQueued).toBe(0);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await h.app.prisma.run.count({ where: { evaluatorId: { in: [first.id, later.id] } } })).toBe(20);
    const stats = async (id: string) => (await ws.gql(STATS, { id: Buffer.from(`Evaluator:${id}`).toString("base64") })).data!.node.stats;
    expect(await stats(first.id)).toEqual({ spansMatched: 10, skippedAttributes: 0, runs: 10, pending: 0 });
    expect(await stats(later.id)).toEqual({ spansMatched: 10, skippedAttributes: 0, runs: 10, pending: 0 });
    // Skips are counted when a span first arrives only: the evaluator created later saw none arrive.
    expect(await stats(other.id)).toEqual({ spansMatched: 0, skippedAttributes: 0, runs: 0, pending: 0 });
  });
});
