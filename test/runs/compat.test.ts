// Open Chat Studio's `main` (docs/sandbox.md § Entry points) on a live span gets OCS's empty dict as `output`
// (there is no expected response), so the compat page's own example cannot mark "The answer is 5"
// correct for "What is 2+2?" by comparing with "". Through GraphQL ingest, the queue and the sandbox.
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
  it("passes {} as output when there is no expected response, so the example fails instead of scoring correct", async () => {
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
    expect(run.errorType).toBe("KeyError");
    expect(run.scores).toEqual([]);
    // With an expected response (a dataset item), the same code compares with it.
    const draft = await h.app.services.tryCode.tryCode(ws.principal, { templateId: t.template.id, document: { input: "What is 2+2?", output: "The answer is 5", expected_output: "4" } });
    expect(draft.scores.find((s) => s.name === "correct_answer")!.value).toBe(false);
  });
});
