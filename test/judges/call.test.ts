// One judge call (src/modules/judges/call.ts) through the official SDKs against real loopback
// OpenAI- and Anthropic-compatible servers: the structured-output request each provider gets,
// the answer and usage back, and the output check on it (output-definition.ts) — a malformed
// answer is refused with its reason, a provider error keeps the key out of its message.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANSWER_NAME, callJudge } from "../../src/modules/judges/call.js";
import { answerSchemaOf, scoresOfAnswer, type OutputDefinition } from "../../src/modules/judges/output-definition.js";
import { DATA_INSTRUCTION, renderMessages } from "../../src/modules/judges/prompt.js";
import { startAnthropicServer, startOpenAiServer, type FakeProvider } from "../connections/fake-providers.js";

const key = `sk-${randomBytes(24).toString("base64url")}`;
const DEFINITION: OutputDefinition = [
  { name: "faithful", type: "boolean", higherIsBetter: true },
  { name: "helpfulness", type: "numeric", min: 1, max: 5, higherIsBetter: true },
];
const messages = renderMessages([{ role: "system", content: "You grade answers." }, { role: "user", content: "Q: {{input}}\nA: {{output}}" }], { input: "2+2?", output: "4" }, {});
const local = { maxRetries: 0, timeoutMs: 5_000, allowPrivate: true };

let openai: FakeProvider;
let anthropic: FakeProvider;
beforeAll(async () => {
  openai = await startOpenAiServer(key);
  anthropic = await startAnthropicServer(key);
});
afterAll(async () => {
  await openai.close();
  await anthropic.close();
});

describe("judge calls", () => {
  it("reports no usage (not zero) when the server sends none", async () => {
    openai.answers.push({ reasoning: "Fine.", faithful: true, helpfulness: 4 });
    const answer = await callJudge({ provider: "openai", baseUrl: openai.baseUrl, apiKey: key }, { messages, definition: DEFINITION, model: "judge-nousage", maxOutputTokens: 100 }, local);
    expect(answer).toMatchObject({ ok: true, model: "judge-nousage", usage: null });
  });

  it("asks an OpenAI-compatible server for strict json_schema output and reads its answer and usage", async () => {
    openai.answers.push({ reasoning: "Correct and short.", faithful: true, helpfulness: 5 });
    const answer = await callJudge({ provider: "openai", baseUrl: openai.baseUrl, apiKey: key }, { messages, definition: DEFINITION, model: "judge-mini", temperature: 0, maxOutputTokens: 300 }, local);
    expect(answer).toMatchObject({ ok: true, model: "judge-mini", usage: { inputTokens: 120, outputTokens: 30 } });
    const body = openai.requests.at(-1)!.body;
    expect(body).toMatchObject({ model: "judge-mini", temperature: 0, max_tokens: 300, response_format: { type: "json_schema", json_schema: { name: ANSWER_NAME, strict: true, schema: answerSchemaOf(DEFINITION) } } });
    expect((body.messages as { role: string; content: string }[])[0]).toEqual({ role: "system", content: DATA_INSTRUCTION });
    const scored = scoresOfAnswer(DEFINITION, (answer as { answer: unknown }).answer);
    expect(scored.ok && scored.scores.map((s) => [s.name, s.value, s.comment])).toEqual([["faithful", true, "Correct and short."], ["helpfulness", 5, "Correct and short."]]);
  });

  it("asks Anthropic for one forced tool whose input_schema is the answer, the system messages as system", async () => {
    anthropic.answers.push({ reasoning: "Fine.", faithful: false, helpfulness: 2 });
    const answer = await callJudge({ provider: "anthropic", baseUrl: anthropic.baseUrl, apiKey: key }, { messages, definition: DEFINITION, model: "judge-haiku", maxOutputTokens: 300 }, local);
    expect(answer).toMatchObject({ ok: true, answer: { reasoning: "Fine.", faithful: false, helpfulness: 2 }, usage: { inputTokens: 120, outputTokens: 30 } });
    const body = anthropic.requests.at(-1)!.body;
    expect(body).toMatchObject({ tools: [{ name: ANSWER_NAME, input_schema: answerSchemaOf(DEFINITION) }], tool_choice: { type: "tool", name: ANSWER_NAME }, system: `${DATA_INSTRUCTION}\n\nYou grade answers.` });
    expect(body.messages).toEqual([{ role: "user", content: messages[2]!.content }]);
    expect(body).not.toHaveProperty("temperature");
  });

  it("a malformed answer comes back as it is and fails the output check with its reason", async () => {
    openai.answers.push("{\"reasoning\": \"ok\", \"faithful\": tru");
    anthropic.answers.push("I think it is faithful.");
    for (const [provider, server] of [["openai", openai], ["anthropic", anthropic]] as const) {
      const answer = await callJudge({ provider, baseUrl: server.baseUrl, apiKey: key }, { messages, definition: DEFINITION, model: "judge-x", maxOutputTokens: 50 }, local);
      expect(answer.ok).toBe(true);
      const checked = scoresOfAnswer(DEFINITION, (answer as { answer: unknown }).answer);
      expect(checked.ok ? "ok" : checked.message).toMatch(/^the judge's answer is not JSON/);
    }
  });

  it("a provider error is the failure, without the key (the server echoes it)", async () => {
    const wrong = `sk-${randomBytes(24).toString("base64url")}`;
    const answer = await callJudge({ provider: "openai", baseUrl: openai.baseUrl, apiKey: wrong }, { messages, definition: DEFINITION, model: "judge-mini", maxOutputTokens: 10 }, local);
    expect(answer).toMatchObject({ ok: false, error: { code: "invalid_key", status: 401 } });
    expect(JSON.stringify(answer)).not.toContain(wrong.slice(3, 20));
    const busy = await callJudge({ provider: "anthropic", baseUrl: anthropic.baseUrl, apiKey: key }, { messages, definition: DEFINITION, model: "busy-model", maxOutputTokens: 10 }, local);
    expect(busy).toMatchObject({ ok: false, error: { code: "rate_limited", retryAfterSeconds: 7 } });
  });
});
