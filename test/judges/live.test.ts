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
import { SpanKind } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { listen } from "../otlp/helpers.js";

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
let service: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  provider = await startOpenAiServer(KEY);
  h = await liveHarness({ label: "judges", env: { CONNECTION_ALLOW_PRIVATE_DESTINATIONS: "true" } });
  service = await listen(h.client.yoga as never);
});
afterAll(async () => {
  await service.close();
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
    expect(body.messages[1]!.content).toMatch(/<<<DATA output [0-9a-f]{32}>>>\n.+\n<<<END DATA output [0-9a-f]{32}>>>/);
    expect(body.messages[1]!.content).toContain("Rubric: Polite means courteous.");

    // The same replies on new spans: the same rendered prompts, served by the cache (no call).
    await h.app.services.spans.ingestSpans(ws.principal, replies.map((r, i) => span("t-judge-2", `r${i}`, r)));
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 10);
    expect(provider.requests.length - before).toBe(5);
    const repeats = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id, span: { traceId: "t-judge-2" } }, include: { scores: true, span: true }, orderBy: { span: { spanId: "asc" } } });
    expect(repeats.map((r) => r.scores[0]?.value)).toEqual([true, false, true, false, true]);
    expect(repeats.every((r) => (r.usage as { cached: boolean; costUsd: number }).cached === true && (r.usage as { costUsd: number }).costUsd === 0)).toBe(true);
  });

  it("runs on spans sent over OTLP by the OpenTelemetry SDK (GenAI conventions: the reply from gen_ai.output.messages)", async () => {
    const { ws, evaluator } = await judgeSetup("judge-otlp");
    provider.judge = politeScript;
    const exporter = new OTLPTraceExporter({ url: `${service.url}/v1/traces`, headers: { authorization: `Bearer ${ws.secret}` } });
    const tracing = new TracerProvider({ resource: resourceFromAttributes({ "service.name": "support-bot" }), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const tracer = tracing.getTracer("support-bot");
    for (const reply of ["Thank you, it is done.", "It is done."]) {
      tracer.startSpan("chat gpt-4o", { kind: SpanKind.CLIENT, attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Cancel my order" }] }]),
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: reply }] }]),
      } }).end();
    }
    await tracing.forceFlush();
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 2);
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, include: { scores: true, span: true } });
    expect(runs.map((r) => [String(r.span!.output ?? JSON.stringify(r.span!.attributes)).includes("Thank") ? "thanks" : "plain", r.scores[0]?.value]).sort()).toEqual([["plain", false], ["thanks", true]]);
    await tracing.shutdown();
  });

  it("judges a whole trace once it ends (its end marker): {{spans}} fenced in the prompt, one run on the trace", async () => {
    const ws = await h.workspace("judge-trace");
    const connection = await h.app.services.connections.createConnection(ws.principal, { name: "Local", provider: "openai", baseUrl: provider.baseUrl, defaultModel: "judge-trace", apiKey: KEY });
    const template = await h.app.services.templates.createTemplate(ws.principal, {
      name: "Agent judge", kind: "llm",
      judge: { messages: [{ role: "user", content: "Did the agent look the order up before refunding?\n{{spans}}" }], output: [{ name: "looked_up_first", type: "boolean", higherIsBetter: true }] },
    });
    const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Agent judge", templateId: template.template.id, connectionId: connection.id, target: "trace", spanKind: "agent" });
    let prompt = "";
    provider.judge = (body) => {
      prompt = userText(body);
      return { reasoning: "lookup came first", looked_up_first: prompt.indexOf("lookup_order") < prompt.indexOf("create_refund") };
    };
    const at = (ms: number) => new Date(Date.UTC(2026, 11, 1, 0, 0, 0, ms)).toISOString();
    await h.app.services.spans.ingestSpans(ws.principal, [
      { traceId: "t-agent", spanId: "tool-1", parentSpanId: "root", name: "execute_tool lookup_order", kind: "tool", input: { order: 7 }, output: "found", startTime: at(5) },
      { traceId: "t-agent", spanId: "tool-2", parentSpanId: "root", name: "execute_tool create_refund", kind: "tool", input: { order: 7 }, output: "refunded", startTime: at(10) },
      // The end marker ends the trace at once (no quiet period to wait for).
      { traceId: "t-agent", spanId: "root", name: "invoke_agent support", kind: "agent", input: "Refund order 7", output: "Done", startTime: at(0), attributes: { "oodle.trace.end": true } },
    ]);
    await waitFor(async () => (await h.app.services.groupScheduler.poll({ workspaceId: ws.workspace.id })).queued + (await h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } })), 1);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 1);
    const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id }, include: { scores: true } });
    expect([run.traceId, run.outcome, run.scores[0]?.value, run.groupSpanCount, (run.usage as { model: string }).model]).toEqual(["t-agent", "ok", true, 3, "judge-trace"]);
    expect(prompt).toMatch(/<<<DATA spans [0-9a-f]{32}>>>/);
    expect(prompt).toContain('"name": "execute_tool lookup_order"');
  });

  it("costs each call from the price table (a workspace override) and skips runs past the spend cap with the reason", async () => {
    const { ws, evaluator } = await judgeSetup("judge-spend", { maxCostPerHourUsd: 0.2 });
    provider.judge = politeScript;
    // 120 input and 30 output tokens a call (the fake server's usage) at $1,000 per million each: $0.15 a call.
    await h.app.services.modelPrices.setModelPrice(ws.principal, { model: "judge-polite", inputUsdPerMillion: 1000, outputUsdPerMillion: 1000 });
    for (const [i, expected] of [[1, "ok"], [2, "ok"], [3, "skipped"]] as const) {
      await h.app.services.spans.ingestSpans(ws.principal, [span("t-judge-spend", `c${i}`, `Thanks ${i}`)]);
      await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), i);
      const run = await h.app.prisma.run.findFirstOrThrow({ where: { evaluatorId: evaluator.id, span: { spanId: `c${i}` } } });
      expect(run.outcome).toBe(expected);
      if (expected === "ok") expect(run.usage).toMatchObject({ model: "judge-polite", inputTokens: 120, outputTokens: 30, costUsd: 0.15, priceSource: "workspace", cached: false });
      else expect(run.skipReason).toBe("maxCostPerHourUsd ($0.2) reached: $0.300000 spent in the last hour");
    }
    const stats = await h.app.services.runs.judgeStats(evaluator.id);
    expect(stats).toMatchObject({ calls: 2, cacheHits: 0, inputTokens: 240, outputTokens: 60, costUsd: 0.3, unpricedCalls: 0, costLastHourUsd: 0.3, skippedSpendCap: 1 });
  });

  it("tries a draft judge and the saved llm template on a sample through tryCode, storing nothing", async () => {
    const { ws, connection, template } = await judgeSetup("judge-try");
    provider.judge = politeScript;
    const TRY = `mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome scores { name value dataType comment } usage { model inputTokens outputTokens cached } error { type message } } }`;
    const draft = await ws.gql(TRY, { input: { judge: POLITE_JUDGE, paramSpecs: SETTINGS, connectionName: "Local", document: { input: "hi", output: "Thank you!" } } });
    expect(draft.errors).toBeUndefined();
    expect(draft.data!.tryCode).toEqual({ outcome: "ok", scores: [{ name: "polite", value: true, dataType: "BOOLEAN", comment: "looked at the words" }], usage: { model: "judge-polite", inputTokens: 120, outputTokens: 30, cached: false }, error: null });
    const saved = await h.app.services.tryCode.tryCode(ws.principal, { templateId: template.template.id, connectionId: connection.id, params: { model: "judge-other" }, document: { output: "No." } });
    expect([saved.outcome, saved.scores[0]?.value, saved.usage?.model]).toEqual(["ok", false, "judge-other"]);
    const missing = await ws.gql(TRY, { input: { judge: POLITE_JUDGE, paramSpecs: SETTINGS, document: { output: "x" } } });
    expect(missing.errors?.[0]?.extensions?.issues).toEqual([{ path: "connectionId", message: "is required to try a judge: the connection whose model it calls" }]);
    expect(await h.app.prisma.run.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
  });

  it("calls once for the same prompt twice in one batch: the second run is a cache hit", async () => {
    const { ws, evaluator } = await judgeSetup("judge-same-batch");
    provider.judge = politeScript;
    const before = provider.requests.length;
    await h.app.services.spans.ingestSpans(ws.principal, [span("t-judge-same", "d1", "Thanks, twice."), span("t-judge-same", "d2", "Thanks, twice.")]);
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 2);
    expect(provider.requests.length - before).toBe(1);
    const runs = await h.app.prisma.run.findMany({ where: { evaluatorId: evaluator.id }, include: { scores: true } });
    expect(runs.map((r) => [r.scores[0]?.value, (r.usage as { cached: boolean }).cached]).sort()).toEqual([[true, false], [true, true]]);
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
