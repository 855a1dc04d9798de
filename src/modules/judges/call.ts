import type { ConnectionProvider } from "../../lib/closed-lists.js";
import { deadlineFailure, failureOf, sdkClients, type ProviderCallOptions, type ProviderFailure } from "../connections/providers.js";
import { answerSchemaOf, type OutputDefinition } from "./output-definition.js";
import type { JudgeMessage } from "./prompt.js";

/**
 * One call of an LLM judge to its provider, through the official SDK, asking for structured output
 * that matches the judge's output definition: OpenAI-compatible servers get `response_format:
 * {type: "json_schema", strict: true}`; Anthropic gets one tool whose `input_schema` is the answer
 * schema, and `tool_choice` forcing it. The answer comes back as it is (text, or the tool call's
 * input) for output-definition.ts `scoresOfAnswer` to check: this module never reads a score.
 */

/** The name of the structured answer (OpenAI's json_schema name, Anthropic's tool). */
export const ANSWER_NAME = "record_scores";

/** What one judge call asks. */
export interface JudgeRequest {
  /** The rendered messages (prompt.ts renderMessages): system ones first. */
  messages: readonly JudgeMessage[];
  definition: OutputDefinition;
  model: string;
  /** Sampling temperature (absent: the provider's default). */
  temperature?: number;
  /** The most output tokens the answer may take. */
  maxOutputTokens: number;
}

/** Tokens of one call, as the provider counted them. */
export interface JudgeUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What a judge call gave: the answer (unchecked), the model that answered and its usage (null when the server reported none: never guessed); or the provider's failure. */
export type JudgeAnswer =
  | { ok: true; answer: unknown; model: string; usage: JudgeUsage | null; latencyMs: number }
  | { ok: false; error: ProviderFailure; latencyMs: number };

/** The longest model name kept (the provider's answer is stored on runs and cache rows). */
const MAX_MODEL_NAME = 200;

/** The model the provider says answered, when it is a sensible string; else the one asked for. */
function modelName(reported: unknown, asked: string): string {
  return typeof reported === "string" && reported.trim() ? reported.slice(0, MAX_MODEL_NAME) : asked;
}

/** Token counts as reported, when both are whole numbers of 0 or more; else null (never guessed). */
function usageOf(input: unknown, output: unknown): JudgeUsage | null {
  const ok = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  return ok(input) && ok(output) ? { inputTokens: input, outputTokens: output } : null;
}

/**
 * Calls the judge once. The whole call (headers and body) takes at most `options.timeoutMs`: the
 * SDK's own timeout ends at the headers, and a provider could drip its body for hours. Never throws: an SDK error is the failure (`rate_limited` with the
 * provider's Retry-After, `invalid_key`, `unknown_model`, …: connections/providers.ts), the key
 * never in its message. An OpenAI refusal is an answer of `null` (it then fails the output check).
 * @param target - the connection's provider, base URL and decrypted key.
 */
export async function callJudge(target: { provider: ConnectionProvider; baseUrl: string | null; apiKey: string }, request: JudgeRequest, options: ProviderCallOptions, now: () => number = Date.now): Promise<JudgeAnswer> {
  const started = now();
  const signal = AbortSignal.timeout(options.timeoutMs);
  const clients = sdkClients(target, options);
  if ("refused" in clients) return { ok: false, error: clients.refused, latencyMs: 0 };
  const schema = answerSchemaOf(request.definition);
  const temperature = request.temperature === undefined ? {} : { temperature: request.temperature };
  try {
    if (clients.openai) {
      const completion = await clients.openai.chat.completions.create({
        model: request.model,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        max_tokens: request.maxOutputTokens,
        response_format: { type: "json_schema", json_schema: { name: ANSWER_NAME, strict: true, schema } },
        ...temperature,
      }, { signal });
      const message = completion.choices[0]?.message;
      return {
        ok: true,
        answer: message?.refusal ? null : (message?.content ?? null),
        model: modelName(completion.model, request.model),
        usage: usageOf(completion.usage?.prompt_tokens, completion.usage?.completion_tokens),
        latencyMs: now() - started,
      };
    }
    const system = request.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n\n");
    const message = await clients.anthropic!.messages.create({
      model: request.model,
      max_tokens: request.maxOutputTokens,
      ...(system ? { system } : {}),
      messages: request.messages.filter((m) => m.role !== "system").map((m) => ({ role: m.role as "user" | "assistant", content: m.content })),
      tools: [{ name: ANSWER_NAME, description: "Record the scores of the evaluation.", input_schema: schema as never }],
      tool_choice: { type: "tool", name: ANSWER_NAME },
      ...temperature,
    }, { signal });
    const call = message.content.find((block) => block.type === "tool_use" && block.name === ANSWER_NAME) as { input?: unknown } | undefined;
    const text = message.content.filter((block) => block.type === "text").map((block) => (block as { text: string }).text).join("");
    return {
      ok: true,
      answer: call ? (call.input ?? null) : text,
      model: modelName(message.model, request.model),
      usage: usageOf(message.usage?.input_tokens, message.usage?.output_tokens),
      latencyMs: now() - started,
    };
  } catch (error) {
    if (signal.aborted) return { ok: false, error: deadlineFailure(options.timeoutMs), latencyMs: now() - started };
    return { ok: false, error: failureOf(error, target.apiKey), latencyMs: now() - started };
  }
}
