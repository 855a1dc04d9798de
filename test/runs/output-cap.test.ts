// Printing more than the output cap (docs/sandbox.md § Outcomes) (64 KiB) keeps the scores. The runner keeps
// what fits, appends a marker, and the run is flagged `outputTruncated`; a flood past 16× the cap
// still ends as output_limit. Through GraphQL ingest, the queue and the sandbox, and tryCode.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness, waitFor } from "./helpers.js";

const CHATTY = `def evaluate(ctx):
    for i in range(100):
        print("x" * 1023)
    return EvaluationResult(scores=[Score(name="done", value=True)])
`;
const FLOOD = `def evaluate(ctx):
    while True:
        print("x" * 1023)
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "output-cap" });
});
afterAll(() => h.close());

describe("output over the cap", () => {
  it("truncates with a marker, keeps the scores and flags the run; a flood is output_limit", async () => {
    const ws = await h.workspace();
    const chatty = await h.app.services.templates.createTemplate(ws.principal, { name: "Chatty", sourceCode: CHATTY });
    const flood = await h.app.services.templates.createTemplate(ws.principal, { name: "Flood", sourceCode: FLOOD });
    const a = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Chatty", templateId: chatty.template.id });
    const b = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Flood", templateId: flood.template.id });
    const res = await ws.gql(`mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued } }`, {
      input: { spans: [{ traceId: "cap", spanId: "s1", name: "chat", input: [{ role: "user", content: "hi" }], output: "hello" }] },
    });
    expect(res.data!.ingestSpans.evaluationsQueued).toBe(2);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: { in: [a.id, b.id] } } }), 2);
    const runs = await ws.gql(`{ runs(first: 10) { edges { node { outcome outputTruncated stderr evaluator { name } scores { name value } } } } }`);
    expect(runs.errors).toBeUndefined();
    const by = Object.fromEntries(runs.data!.runs.edges.map((e: { node: { evaluator: { name: string } } }) => [e.node.evaluator.name, e.node]));
    expect(by.Chatty).toMatchObject({ outcome: "ok", outputTruncated: true, scores: [{ name: "done", value: true }] });
    expect(by.Chatty.stderr).toMatch(/\[oodle: output truncated: the item printed more than 65536 bytes/);
    expect(by.Flood).toMatchObject({ outcome: "output_limit", outputTruncated: false, scores: [] });

    const draft = await h.app.services.tryCode.tryCode(ws.principal, { sourceCode: CHATTY, span: { input: "hi", output: "hello" } });
    expect(draft).toMatchObject({ outcome: "ok", outputTruncated: true, scores: [{ name: "done", value: true }] });
    expect(Buffer.byteLength(draft.stdout + draft.stderr)).toBeLessThanOrEqual(64 * 1024);
  });
});
