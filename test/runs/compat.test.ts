// Open Chat Studio's `main` (docs/sandbox.md § Entry points) on a live span gets OCS's empty dict as `output`
// when there is no expected response, so the compat page's own example cannot mark "The answer is 5"
// correct for "What is 2+2?" by comparing with ""; reading output['content'] then says why and where
// an expected response comes from (issue 27), and a span's attribute oodle.expected_output is one.
// Through GraphQL ingest, the queue and the sandbox.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveHarness, waitFor } from "./helpers.js";

/** The compat page's example, verbatim. */
const OCS_EXAMPLE = `def main(input: dict, output: dict, context: dict, full_history: str, generated_response: str, **kwargs) -> dict:
    """Evaluates response quality based on accuracy, length, and politeness.
    """

    expected_answer = output['content'].lower()
    actual_answer = generated_response.lower()
    has_correct_answer = expected_answer in actual_answer

    response_length = len(generated_response.split())
    is_polite = any(word in actual_answer for word in ['please', 'thank', 'help', 'happy'])

    return {
        'correct_answer': has_correct_answer,
        'response_length': response_length,
        'politeness_score': 1.0 if is_polite else 0.0,
        'topic': context.get('topic', 'unknown')
    }
`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ label: "compat" });
});
afterAll(() => h.close());

describe("Open Chat Studio main on a live span", () => {
  it("without an expected response, fails saying so and where one can come from (not a bare KeyError: 'content')", async () => {
    const ws = await h.workspace();
    const t = await h.app.services.templates.createTemplate(ws.principal, { name: "OCS example", sourceCode: OCS_EXAMPLE });
    const ev = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "OCS", templateId: t.template.id });
    const res = await ws.gql(`mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued } }`, {
      input: { spans: [{ traceId: "ocs", spanId: "s1", name: "chat", input: [{ role: "user", content: "What is 2+2?" }], output: "The answer is 5" }] },
    });
    expect(res.data!.ingestSpans.evaluationsQueued).toBe(1);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: ev.id } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: ev.id }, include: { scores: true } });
    expect(run.outcome).toBe("user_error");
    expect(run.errorType).toBe("NoExpectedResponseError");
    expect(run.errorMessage).toBe(
      "output['content']: there is no expected response here. In Open Chat Studio's main, output is the expected AI response, and this span has none. " +
        "Give the span one in the attribute 'oodle.expected_output' (the expected reply as a string, or a message with content), or run the evaluator over a dataset item " +
        "with expected_output (an experiment); where it may be absent, read output.get('content')",
    );
    expect(run.scores).toEqual([]);
    // With an expected response (a dataset item), the same code compares with it.
    const draft = await h.app.services.tryCode.tryCode(ws.principal, { templateId: t.template.id, document: { input: "What is 2+2?", output: "The answer is 5", expected_output: "4" } });
    expect(draft.scores.find((s) => s.name === "correct_answer")!.value).toBe(false);
  });

  it("with the span attribute oodle.expected_output, output is that expected response: live, tryCode on the stored span and the span's document agree", async () => {
    const ws = await h.workspace();
    const t = await h.app.services.templates.createTemplate(ws.principal, { name: "OCS example", sourceCode: OCS_EXAMPLE });
    const ev = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "OCS", templateId: t.template.id });
    const spans = [
      { traceId: "ocs", spanId: "right", name: "chat", input: [{ role: "user", content: "What is 2+2?" }], output: "The answer is 4, happy to help", attributes: { "oodle.expected_output": "4" } },
      { traceId: "ocs", spanId: "wrong", name: "chat", input: [{ role: "user", content: "What is 2+2?" }], output: "The answer is 5", attributes: { "oodle.expected_output": { role: "assistant", content: "4" } } },
    ];
    const ingested = await h.app.services.spans.ingestSpans(ws.principal, spans);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: ev.id } }), 2);
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: ev.id }, include: { scores: { orderBy: { position: "asc" } }, span: true } });
    const live = Object.fromEntries(runs.map((r) => [r.span!.spanId, [r.outcome, r.scores.map((s) => [s.name, s.value])]]));
    expect(live).toEqual({
      right: ["ok", [["correct_answer", true], ["response_length", 7], ["politeness_score", 1], ["topic", "unknown"]]],
      wrong: ["ok", [["correct_answer", false], ["response_length", 4], ["politeness_score", 0], ["topic", "unknown"]]],
    });
    // The span's document carries it as expected_output; tryCode on the stored span gives the same scores.
    const document = await h.app.services.spans.documentOf(ws.workspace.id, ingested.spans[0]!.id);
    expect(document.expected_output).toBe("4");
    const draft = await h.app.services.tryCode.tryCode(ws.principal, { templateId: t.template.id, spanId: ingested.spans[1]!.id });
    expect(draft.scores.map((s) => [s.name, s.value])).toEqual(live.wrong![1]);
  });
});
