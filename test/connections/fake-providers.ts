import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Real HTTP servers on loopback that speak enough of the OpenAI chat-completions API and the
 * Anthropic messages API for the official SDKs. Answers by key and model:
 * - a key other than `validKey`: 401 (its message echoes the key sent, as some servers do);
 * - model `missing-model`: 404; model `busy-model`: 429 with `Retry-After: 7`;
 * - model `flaky-model`: 429 with `Retry-After: 0` on the first request, then 200;
 * - a model starting with `judge`: 200 with the next of `answers` (OpenAI: the message content, an
 *   object as JSON text; Anthropic: an object as the forced tool's input, a string as text), usage
 *   120 input and 30 output tokens;
 *   (or what the test's `judge` script answers, after `delayMs`);
 * - any other model: 200, naming the model `<model>-served`.
 */

/** One request as the server saw it. */
export interface SeenRequest {
  path: string;
  /** The credential sent: Authorization's bearer, or x-api-key (anthropic). */
  credential: string | undefined;
  body: Record<string, unknown>;
}

/** A running fake provider. */
export interface FakeProvider {
  /** The base URL to give a connection (`http://127.0.0.1:PORT/v1` for openai, `http://127.0.0.1:PORT` for anthropic). */
  baseUrl: string;
  requests: SeenRequest[];
  /** The judge answers still to give, in order (the test pushes them). */
  answers: unknown[];
  /**
   * When set, answers every judge request instead of `answers`: the answer to give, or a
   * {@link FakeFailure} to answer with an error status (429 with Retry-After, 401, 500…).
   */
  judge?: (body: Record<string, unknown>) => unknown;
  /** Milliseconds each judge answer waits before it is sent (a slow provider). */
  delayMs: number;
  close(): Promise<void>;
}

/** An error answer a {@link FakeProvider.judge} script gives. */
export class FakeFailure {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly headers: Record<string, string> = {},
    /** OpenAI's error code (insufficient_quota, rate_limit_exceeded…). */
    readonly code: string | null = null,
  ) {}
}

/** The judge answer of a request: the script's, else the next queued one; after the provider's delay. */
async function judgeAnswer(provider: FakeProvider, body: Record<string, unknown>): Promise<unknown> {
  if (provider.delayMs > 0) await new Promise((r) => setTimeout(r, provider.delayMs));
  return provider.judge ? provider.judge(body) : provider.answers.shift();
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** Answers a request with a JSON body, a status and extra headers. */
function jsonSender(res: ServerResponse) {
  return (status: number, payload: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(payload));
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function closer(server: Server): () => Promise<void> {
  return () => new Promise((resolve) => server.close(() => resolve()));
}

/** An OpenAI-compatible server (`POST /v1/chat/completions`). */
export async function startOpenAiServer(validKey: string): Promise<FakeProvider> {
  const requests: SeenRequest[] = [];
  const answers: unknown[] = [];
  const provider = { baseUrl: "", requests, answers, delayMs: 0 } as FakeProvider;
  let flakyServed = 0;
  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    const auth = req.headers.authorization;
    const credential = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
    requests.push({ path: req.url ?? "", credential, body });
    const send = jsonSender(res);
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") return send(404, { error: { message: `no route ${req.url}`, type: "invalid_request_error" } });
    if (credential !== validKey) return send(401, { error: { message: `Incorrect API key provided: ${credential}. You can find your API key at https://example.invalid.`, type: "invalid_request_error", code: "invalid_api_key" } });
    const model = String(body.model);
    if (model === "missing-model") return send(404, { error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: "invalid_request_error", code: "model_not_found" } });
    if (model === "busy-model") return send(429, { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } }, { "retry-after": "7" });
    if (model === "flaky-model" && flakyServed++ === 0) return send(429, { error: { message: "Rate limit reached", type: "requests" } }, { "retry-after": "0" });
    if (model.startsWith("judge")) {
      const answer = await judgeAnswer(provider, body);
      if (answer instanceof FakeFailure) return send(answer.status, { error: { message: answer.message, type: "requests", code: answer.code } }, answer.headers);
      return send(200, {
        id: "chatcmpl-j", object: "chat.completion", created: 1_700_000_000, model,
        choices: [{ index: 0, message: { role: "assistant", content: typeof answer === "string" ? answer : JSON.stringify(answer), refusal: null }, finish_reason: "stop", logprobs: null }],
        // A model named …-nousage answers as servers that report no usage do (some local ones).
        ...(model.endsWith("-nousage") ? {} : { usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 } }),
      });
    }
    send(200, {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_700_000_000,
      model: `${model}-served`,
      choices: [{ index: 0, message: { role: "assistant", content: "p", refusal: null }, finish_reason: "length", logprobs: null }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  });
  const port = await listen(server);
  return Object.assign(provider, { baseUrl: `http://127.0.0.1:${port}/v1`, close: closer(server) });
}

/** An Anthropic-compatible server (`POST /v1/messages`). */
export async function startAnthropicServer(validKey: string): Promise<FakeProvider> {
  const requests: SeenRequest[] = [];
  const answers: unknown[] = [];
  const provider = { baseUrl: "", requests, answers, delayMs: 0 } as FakeProvider;
  let flakyServed = 0;
  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    // The SDK sends the key as x-api-key or (newer versions) as Authorization: Bearer.
    const auth = req.headers.authorization;
    const credential = (req.headers["x-api-key"] as string | undefined) ?? (auth?.startsWith("Bearer ") ? auth.slice(7) : undefined);
    requests.push({ path: req.url ?? "", credential, body });
    const send = jsonSender(res);
    const error = (status: number, type: string, message: string, headers: Record<string, string> = {}) => send(status, { type: "error", error: { type, message } }, headers);
    if (req.method !== "POST" || req.url !== "/v1/messages") return error(404, "not_found_error", `no route ${req.url}`);
    if (credential !== validKey) return error(401, "authentication_error", `invalid x-api-key ${credential}`);
    const model = String(body.model);
    if (model === "missing-model") return error(404, "not_found_error", `model: ${model}`);
    if (model === "busy-model") return error(429, "rate_limit_error", "Number of requests has exceeded your rate limit", { "retry-after": "7" });
    if (model === "flaky-model" && flakyServed++ === 0) return error(429, "rate_limit_error", "rate limited", { "retry-after": "0" });
    if (model.startsWith("judge")) {
      const answer = await judgeAnswer(provider, body);
      if (answer instanceof FakeFailure) return error(answer.status, answer.status === 429 ? "rate_limit_error" : answer.status === 401 ? "authentication_error" : "api_error", answer.message, answer.headers);
      const tool = (body.tool_choice as { name?: string } | undefined)?.name ?? "tool";
      const block = typeof answer === "string" ? { type: "text", text: answer } : { type: "tool_use", id: "toolu_1", name: tool, input: answer };
      return send(200, { id: "msg_j", type: "message", role: "assistant", model, content: [block], stop_reason: typeof answer === "string" ? "end_turn" : "tool_use", stop_sequence: null, usage: { input_tokens: 120, output_tokens: 30 } });
    }
    send(200, {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: `${model}-served`,
      content: [{ type: "text", text: "p" }],
      stop_reason: "max_tokens",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    });
  });
  const port = await listen(server);
  return Object.assign(provider, { baseUrl: `http://127.0.0.1:${port}`, close: closer(server) });
}

/** A loopback URL where nothing listens (a server started, then closed). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  const port = await listen(server);
  await closer(server)();
  return `http://127.0.0.1:${port}/v1`;
}
