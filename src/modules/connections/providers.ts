import Anthropic, * as AnthropicErrors from "@anthropic-ai/sdk";
import OpenAI, * as OpenAIErrors from "openai";
import { Agent, fetch as undiciFetch } from "undici";
import type { ConnectionErrorCode, ConnectionProvider } from "../../lib/closed-lists.js";
import { guardedLookup, ipLiteralOf, isPrivateAddress } from "../../lib/private-addresses.js";

/**
 * The calls to providers, through their official SDKs (`openai`, `@anthropic-ai/sdk`), and the
 * mapping of their errors to {@link ConnectionErrorCode}. No environment variable of the SDKs
 * (OPENAI_BASE_URL, ANTHROPIC_AUTH_TOKEN, …) is read: every option is given.
 */

/** The provider's own base URL when a connection sets none. */
export const DEFAULT_BASE_URLS: Record<ConnectionProvider, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
};

/** What one call to a provider needs. */
export interface ProviderTarget {
  provider: ConnectionProvider;
  baseUrl: string | null;
  apiKey: string;
  model: string;
}

/** How the SDKs call: their retries (429 and 5xx, honouring Retry-After) and the time one call may take. */
export interface ProviderCallOptions {
  maxRetries: number;
  timeoutMs: number;
  /** Whether a base URL may be (or resolve to) a loopback or private address: local model servers (CONNECTION_ALLOW_PRIVATE_DESTINATIONS). */
  allowPrivate: boolean;
}

/** The setting that lets connections reach private and loopback addresses. */
export const ALLOW_PRIVATE_SETTING = "CONNECTION_ALLOW_PRIVATE_DESTINATIONS";

/** The SDKs' fetch when private addresses are refused: undici's, whose sockets resolve names with the guard (no DNS-rebinding gap). */
const guardedAgent = new Agent({ connect: { lookup: guardedLookup(ALLOW_PRIVATE_SETTING) } });
// No redirects: a redirect to an IP literal would skip the guarded lookup (names are checked there, literals are not).
const guardedFetch = ((url: string | URL, init?: Record<string, unknown>) => undiciFetch(url, { ...(init ?? {}), redirect: "error", dispatcher: guardedAgent } as never)) as unknown as typeof fetch;

/** The private-address refusal of a call, or null: a base URL whose host is a private IP literal (names are checked by the socket's lookup). */
export function privateAddressFailure(baseUrl: string): ProviderFailure | null {
  const literal = ipLiteralOf(baseUrl);
  if (literal === null || !isPrivateAddress(literal)) return null;
  return { code: "private_address", message: `${literal} is a private or loopback address (set ${ALLOW_PRIVATE_SETTING}=true to allow local model servers)`, status: null, retryAfterSeconds: null };
}

/** True when the error, or one of its causes, is the guard's refusal. */
function refusedByGuard(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 6; e = (e as { cause?: unknown }).cause, depth += 1) {
    if ((e as { code?: unknown }).code === "EPRIVATE") return (e as { message?: string }).message ?? "a private or loopback address";
  }
  return null;
}

/** Why a call failed, with what a caller can act on; the message never holds the key. */
export interface ProviderFailure {
  code: ConnectionErrorCode;
  message: string;
  /** The HTTP status of the answer (null: no answer). */
  status: number | null;
  /** rate_limited: the provider's Retry-After, in whole seconds (null when it sent none). */
  retryAfterSeconds: number | null;
}

/** The outcome of a probe: the model that answered, or the failure; latencyMs either way. */
export interface ProbeResult {
  ok: boolean;
  /** The model the provider says answered (else the one asked for). */
  model: string;
  latencyMs: number;
  error: ProviderFailure | null;
}

/** The longest provider message kept (characters). */
const MAX_MESSAGE = 500;

/**
 * `message` with every word that shares 6 or more consecutive characters with `key` replaced by
 * `[redacted]` (a provider may echo the key, or part of it, in its error), cut to 500 characters.
 */
export function redactKey(message: string, key: string): string {
  const window = Math.min(6, key.length);
  const pieces = new Set<string>();
  for (let i = 0; i + window <= key.length; i++) pieces.add(key.slice(i, i + window));
  const cleaned = message
    .split(/(\s+)/)
    .map((word) => {
      if (word.trim() === "") return word;
      for (let i = 0; i + window <= word.length; i++) if (pieces.has(word.slice(i, i + window))) return "[redacted]";
      return word;
    })
    .join("");
  return cleaned.length > MAX_MESSAGE ? `${cleaned.slice(0, MAX_MESSAGE - 1)}…` : cleaned;
}

/** A Retry-After header as whole seconds (delta seconds or an HTTP date), null when absent or unreadable. */
export function retryAfterSeconds(headers: unknown, now = Date.now()): number | null {
  const value =
    headers && typeof (headers as Headers).get === "function" ? (headers as Headers).get("retry-after") : ((headers as Record<string, string> | undefined)?.["retry-after"] ?? null);
  if (value === null || value === undefined || value === "") return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) {
    const seconds = Math.ceil(Number(value));
    return Number.isFinite(seconds) ? seconds : null;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error classes both SDKs export under the same names. */
type SdkErrorName = "APIConnectionTimeoutError" | "APIConnectionError" | "AuthenticationError" | "PermissionDeniedError" | "NotFoundError" | "RateLimitError";

/** The failure of an SDK error (both SDKs' classes share names and shapes). */
export function failureOf(error: unknown, key: string): ProviderFailure {
  const raw = error instanceof Error ? error.message : String(error);
  const message = redactKey(raw, key);
  const is = (name: SdkErrorName) => error instanceof OpenAIErrors[name] || error instanceof AnthropicErrors[name];
  const status = typeof (error as { status?: unknown }).status === "number" ? ((error as { status: number }).status) : null;
  if (is("APIConnectionTimeoutError")) return { code: "timeout", message, status: null, retryAfterSeconds: null };
  const refused = refusedByGuard(error);
  if (refused) return { code: "private_address", message: refused, status: null, retryAfterSeconds: null };
  if (is("APIConnectionError")) {
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    const detail = cause ? redactKey(`${cause.code ?? ""} ${cause.message ?? ""}`.trim(), key) : "";
    return { code: "unreachable", message: detail ? `${message}: ${detail}` : message, status: null, retryAfterSeconds: null };
  }
  if (is("AuthenticationError")) return { code: "invalid_key", message, status, retryAfterSeconds: null };
  if (is("PermissionDeniedError")) return { code: "permission_denied", message, status, retryAfterSeconds: null };
  if (is("NotFoundError")) return { code: "unknown_model", message, status, retryAfterSeconds: null };
  // OpenAI answers an exhausted quota with 429 and the error code insufficient_quota: waiting will not heal it.
  if (is("RateLimitError") && (error as { code?: unknown }).code === "insufficient_quota") return { code: "quota_exhausted", message, status, retryAfterSeconds: null };
  if (is("RateLimitError")) return { code: "rate_limited", message, status, retryAfterSeconds: retryAfterSeconds((error as { headers?: unknown }).headers) };
  return { code: "provider_error", message, status, retryAfterSeconds: null };
}

/** The failure of a call cut at its deadline. */
export function deadlineFailure(timeoutMs: number): ProviderFailure {
  return { code: "timeout", message: `no complete answer within ${timeoutMs} ms`, status: null, retryAfterSeconds: null };
}

/**
 * Calls the provider once with the smallest request that proves the key and the model work: a
 * chat completion (openai) or a message (anthropic) of one user turn and at most 1 output token.
 * Never throws: an SDK error becomes {@link ProviderFailure}.
 */
export async function probeProvider(target: ProviderTarget, options: ProviderCallOptions, now: () => number = Date.now): Promise<ProbeResult> {
  const started = now();
  // The whole call's deadline (the SDK's own timeout ends at the headers).
  const signal = AbortSignal.timeout(options.timeoutMs);
  const clients = sdkClients(target, options);
  if ("refused" in clients) return { ok: false, model: target.model, latencyMs: 0, error: clients.refused };
  try {
    let model: string;
    if (clients.openai) {
      const answer = await clients.openai.chat.completions.create({ model: target.model, messages: [{ role: "user", content: "ping" }], max_tokens: 1 }, { signal });
      model = answer.model || target.model;
    } else {
      const answer = await clients.anthropic!.messages.create({ model: target.model, max_tokens: 1, messages: [{ role: "user", content: "ping" }] }, { signal });
      model = answer.model || target.model;
    }
    return { ok: true, model, latencyMs: now() - started, error: null };
  } catch (error) {
    if (signal.aborted) return { ok: false, model: target.model, latencyMs: now() - started, error: deadlineFailure(options.timeoutMs) };
    return { ok: false, model: target.model, latencyMs: now() - started, error: failureOf(error, target.apiKey) };
  }
}

/**
 * The official SDK client of a connection (one of the two set), built with every option given:
 * the key, the base URL (else the provider's), retries, timeout, SDK logging off and, unless private
 * addresses are allowed, the guarded fetch. A base URL that is a private IP literal is refused
 * before any client exists.
 */
export function sdkClients(target: Omit<ProviderTarget, "model">, options: ProviderCallOptions): { openai?: OpenAI; anthropic?: Anthropic } | { refused: ProviderFailure } {
  const baseURL = target.baseUrl ?? DEFAULT_BASE_URLS[target.provider];
  const refused = options.allowPrivate ? null : privateAddressFailure(baseURL);
  if (refused) return { refused };
  const common = { apiKey: target.apiKey, baseURL, maxRetries: options.maxRetries, timeout: options.timeoutMs, logLevel: "off" as const, ...(options.allowPrivate ? {} : { fetch: guardedFetch }) };
  if (target.provider === "openai") return { openai: new OpenAI({ ...common, organization: null, project: null, webhookSecret: null }) };
  return { anthropic: new Anthropic({ ...common, authToken: null, openTelemetry: false }) };
}
