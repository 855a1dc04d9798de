// LLM judges on live spans (issue 30, docs/judges.md): an llm template run by a judge evaluator
// through the queue, the worker and the official OpenAI SDK against a real loopback server; the
// result cache; a 429 that delays without spending an attempt; a 401 that blocks the evaluator;
// a cascade (a code check gates the judge, a code evaluator reads the judge's score); the key
// never leaving the service.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATA_INSTRUCTION } from "../../src/modules/judges/prompt.js";
import { FakeFailure, startOpenAiServer, type FakeProvider } from "../connections/fake-providers.js";
import { liveHarness, waitFor } from "../runs/helpers.js";

const KEY = `sk-proj-${randomBytes(24).toString("base64url")}`;

/** A politeness judge: one boolean score from the reply. */
const POLITE_JUDGE = {
  messages: [{ role: "user", content: "Is this reply polite? Reply:\n{{output}}\nRubric: {{params.rubric}}" }],
  output: [{ name: "polite", type: "boolean", higherIsBetter: true, description: "The reply is polite." }],
};
const SETTINGS = [
  { name: "model", type: "string", default: "judge-polite" },
  { name: "rubric", type: "string", default: "Polite means courteous." },
];

/** The user text a judge request carries (the rendered user message). */
function userText(body: Record<string, unknown>): string {
  return ((body.messages as { role: string; content: string }[]) ?? []).filter((m) => m.role === "user").map((m) => m.content).join("\n");
}

/** Answers "polite" when the reply says please or thanks. */
function politeScript(body: Record<string, unknown>) {
  const text = userText(body);
  return { reasoning: "looked at the words", polite: /please|thank/i.test(text) };
}

let h: Awaited<ReturnType<typeof liveHarness>>;
let provider: FakeProvider;

beforeAll(async () => {
  provider = await startOpenAiServer(KEY);
  h = await liveHarness({ label: "judges", env: { CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true", } });
});
afterAll(async () => {
  await h.close();
  await provider.close();
});

async function judgeSetup(label: string, extra: Record<string, unknown> = {}) {
  const ws = await h.workspace(label);
  const connection = await h.app.services.connections.createConnection(ws.principal, { name: "Local", provider: "openai", baseUrl: provider.baseUrl, defaultModel: "judge-default", apiKey: KEY });
  const template = await h.app.services.templates.createTemplate(ws.principal, { name: "Politeness", kind: "llm", judge: POLITE_JUDGE, params: SETTINGS });
  const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Politeness judge", templateId: template.template.id, connectionId: connection.id, ...extra });
  return { ws, connection, template, evaluator };
}

function span(traceId: string, spanId: string, output: string) {
  return { traceId, spanId, name: "chat", kind: "chat", input: [{ role: "user", content: "hi" }], output, startTime: "2026-12-01T00:00:00.000Z" };
}

describe("judge evaluators on live spans", () => {
  it("saves an llm template, runs it on spans through the SDK, records scores and usage, and serves repeats from the cache", async () => {
    const { ws, evaluator, template } = await judgeSetup("judge-live");
    expect(evaluator.kind).toBe("judge");
    expect(template.template.kind).toBe("llm");
    expect(template.latest.entryPointKind).toBe("judge");
    provider.judge = politeScript;
    const before = provider.requests.length;
    const replies = ["Thank you for asking!", "No.", "Please hold on.", "Go away.", "Thanks, here it is."];
    await h.app.services.spans.ingestSpans(ws.principal, replies.map((r, i) => span("t-judge-1", `s${i}`, r)));
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 5);
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, include: { scores: true, span: true }, orderBy: { span: { spanId: "asc" } } });
    expect(runs.map((r) => [r.span!.spanId, r.outcome, r.scores[0]?.value, r.scores[0]?.dataType, r.attempts])).toEqual([
      ["s0", "ok", true, "BOOLEAN", 1],
      ["s1", "ok", false, "BOOLEAN", 1],
      ["s2", "ok", true, "BOOLEAN", 1],
      ["s3", "ok", false, "BOOLEAN", 1],
      ["s4", "ok", true, "BOOLEAN", 1],
    ]);
    expect(runs[0]!.scores[0]!.comment).toBe("looked at the words");
    expect(runs[0]!.usage).toMatchObject({ model: "judge-polite", inputTokens: 120, outputTokens: 30, cached: false });
    const calls = provider.requests.slice(before);
    expect(calls).toHaveLength(5);
    // The model setting's default, structured output, the data instruction first and the reply fenced.
    const body = calls[0]!.body as { model: string; messages: { role: string; content: string }[]; response_format: { type: string; json_schema: { strict: boolean } } };
    expect(body.model).toBe("judge-polite");
    expect(body.response_format.type).toBe("json_schema");
    expect(body.response_format.json_schema.strict).toBe(true);
    expect(body.messages[0]).toEqual({ role: "system", content: DATA_INSTRUCTION });
    expect(body.messages[1]!.content).toMatch(/<<<DATA output [0-9a-f]{12}>>>\n.+\n<<<END DATA output [0-9a-f]{12}>>>/);
    expect(body.messages[1]!.content).toContain("Rubric: Polite means courteous.");

    // The same replies on new spans: the same rendered prompts, served by the cache (no call).
    await h.app.services.spans.ingestSpans(ws.principal, replies.map((r, i) => span("t-judge-2", `r${i}`, r)));
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 10);
    expect(provider.requests.length - before).toBe(5);
    const repeats = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id, span: { traceId: "t-judge-2" } }, include: { scores: true, span: true }, orderBy: { span: { spanId: "asc" } } });
    expect(repeats.map((r) => r.scores[0]?.value)).toEqual([true, false, true, false, true]);
    expect(repeats.every((r) => (r.usage as { cached: boolean; costUsd: number }).cached === true && (r.usage as { costUsd: number }).costUsd === 0)).toBe(true);
  });

  it("records an answer that does not match the output definition as invalid_result with the reason", async () => {
    const { ws, evaluator } = await judgeSetup("judge-invalid");
    provider.judge = () => ({ reasoning: "unsure", polite: "maybe" });
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-judge-bad", "b1", "Hm.")]);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id }, include: { scores: true } });
    expect([run.outcome, run.errorType, run.errorMessage, run.scores.length]).toEqual(["invalid_result", "InvalidJudgeAnswer", 'the judge\'s score "polite" must be true or false, got "maybe"', 0]);
  });

  it("delays a run the provider answers 429 with Retry-After, without spending an attempt, then records it", async () => {
    const { ws, evaluator } = await judgeSetup("judge-429");
    let busy = 2;
    provider.judge = (body) => (busy-- > 0 ? new FakeFailure(429, "Rate limit reached for requests", { "retry-after": "1" }, "rate_limit_exceeded") : politeScript(body));
    const started = Date.now();
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-judge-429", "x1", "Thank you")]);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id }, include: { scores: true } });
    expect([run.outcome, run.attempts, run.scores[0]?.value]).toEqual(["ok", 1, true]);
    // Two Retry-After: 1 waits at least.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it("blocks the evaluator with the reason on a 401, skips its runs while blocked, and runs again once unblocked", async () => {
    const { ws, evaluator } = await judgeSetup("judge-401");
    provider.judge = () => new FakeFailure(401, "Incorrect API key provided");
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-judge-401", "k1", "Thanks")]);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 1);
    const first = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id } });
    expect([first.outcome, first.errorType, first.attempts]).toEqual(["sandbox_error", "ProviderError:invalid_key", 1]);
    const blocked = await h.app.prisma.evaluator.findUniqueOrThrow({ where: { id: evaluator.id } });
    expect(blocked.blockedAt).not.toBeNull();
    expect(blocked.blockedReason).toMatch(/^invalid_key from connection "Local": /);

    const callsBefore = provider.requests.length;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-judge-401", "k2", "Thanks")]);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 2);
    const skipped = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id, span: { spanId: "k2" } } });
    expect(skipped.outcome).toBe("skipped");
    expect(skipped.skipReason).toMatch(/^the evaluator is blocked since .+: invalid_key from connection "Local"/);
    expect(provider.requests.length).toBe(callsBefore);

    await h.app.services.evaluators.unblockEvaluator(ws.principal, { id: evaluator.id });
    provider.judge = politeScript;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-judge-401", "k3", "Thanks")]);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 3);
    const again = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id, span: { spanId: "k3" } }, include: { scores: true } });
    expect([again.outcome, again.scores[0]?.value]).toEqual(["ok", true]);
  });
});
