import type { ItemResult } from "../../execution/index.js";
import type { ConnectionErrorCode, ConnectionProvider } from "../../lib/closed-lists.js";
import type { KeyedSemaphore } from "../../lib/keyed-semaphore.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { ProviderCallOptions, ProviderFailure } from "../connections/providers.js";
import type { EvaluatorExecutor, ExecutedBatch, RunUsage } from "./executors.js";

export type { RunUsage } from "./executors.js";
import { cacheKeyOf, readCached, writeCached } from "../judges/cache.js";
import { callJudge, type JudgeAnswer, type JudgeRequest } from "../judges/call.js";
import { judgeOf, MODEL_SETTING, TEMPERATURE_SETTING, type JudgeDefinition } from "../judges/definition.js";
import { scoresOfAnswer } from "../judges/output-definition.js";
import { PromptTooLargeError, renderMessages } from "../judges/prompt.js";

/**
 * The judge executor (evaluator kind `judge`): per document, the template's messages are rendered
 * (document values fenced as data), the result cache is asked, and on a miss the connection's model
 * is called through its official SDK with structured output, at most `maxConcurrentRequests` calls
 * of a connection at once in this process. The answer is checked against the output definition:
 * one that does not match is `invalid_result` with the reason, never a guessed score.
 *
 * Provider failures, by what heals them:
 * - `rate_limited` (429, Retry-After): the item is deferred until then (the driver delays its job
 *   without spending an attempt, evaluate-batch.ts `deferrable`), else a `sandbox_error` retried;
 * - `invalid_key`, `permission_denied`, `unknown_model`, `quota_exhausted`, `private_address`: will
 *   not heal; the evaluator is blocked with the reason (`onTerminal`) and the batch is `final`;
 * - `timeout`, `unreachable`, `provider_error`: a `sandbox_error`, retried with backoff.
 * The provider key is opened here, used by the SDK, and never put in a result, a log line or an error.
 */

/** The provider failures that retrying will not heal: the evaluator is blocked. */
export const TERMINAL_FAILURES: readonly ConnectionErrorCode[] = ["invalid_key", "permission_denied", "unknown_model", "quota_exhausted", "private_address"];

/** How long a 429 without Retry-After waits, ms. */
export const DEFAULT_RETRY_AFTER_MS = 5_000;
/** The shortest and longest wait a provider's Retry-After may ask, ms (0 would spin the worker; a year would park the job). */
export const MIN_RETRY_AFTER_MS = 1_000;
export const MAX_RETRY_AFTER_MS = 3_600_000;

/** The wait of a 429: its Retry-After (seconds) within [1 s, 1 h], else 5 s. */
export function retryDelayMs(retryAfterSeconds: number | null): number {
  if (retryAfterSeconds === null || !Number.isFinite(retryAfterSeconds)) return DEFAULT_RETRY_AFTER_MS;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, retryAfterSeconds * 1000));
}

/** What the executor needs of a connection (connections/service.ts callTargetOf). */
export interface JudgeCallTarget {
  id: string;
  name: string;
  provider: ConnectionProvider;
  baseUrl: string | null;
  apiKey: string;
  defaultModel: string;
  maxConcurrentRequests: number;
}

/** The dependencies of the judge executor. */
export interface JudgeExecutorDeps {
  prisma: PrismaClient;
  logger: Logger;
  /** Opens the connection of a judge (throws NOT_FOUND for a connection gone). */
  callTargetOf(workspaceId: string, connectionId: string): Promise<JudgeCallTarget>;
  /** The workspace's pricing of calls: the price table (judges/prices.ts) with its overrides, read once per batch. */
  pricingOf(workspaceId: string): Promise<(model: string, usage: { inputTokens: number; outputTokens: number }) => Pick<RunUsage, "costUsd" | "priceSource">>;
  /** Blocks the evaluator with the reason (evaluators/blocking.ts); a draft (no evaluator) blocks nothing. */
  onTerminal(evaluatorId: string, reason: string): Promise<unknown>;
  /** Per-connection concurrency. */
  semaphore: KeyedSemaphore;
  /** How calls go out: no SDK retries (the queue retries), a timeout, private addresses or not. */
  callOptions: ProviderCallOptions;
  /** The call (tests may wrap it); default: {@link callJudge}. */
  call?: (target: JudgeCallTarget, request: JudgeRequest, options: ProviderCallOptions) => Promise<JudgeAnswer>;
  /** Now, ms since the epoch (tests inject one). */
  now?: () => number;
  /** Told each item's result (metrics): ok, invalid_answer, cache_hit or the provider's error code, and the call's seconds. */
  onCall?: (result: string, seconds?: number) => void;
}

/** The result of an item that ran nowhere because of a provider failure or a setup fault. */
function faultResult(type: string, message: string, durationMs = 0): ItemResult {
  return { outcome: "sandbox_error", scores: [], stdout: "", stderr: "", error: { type, message, traceback: "" }, durationMs };
}

/** The model and temperature of a run: its `model` setting (else the connection's default) and `temperature` setting. */
export function modelOf(params: Readonly<Record<string, unknown>>, target: Pick<JudgeCallTarget, "defaultModel">): { model: string; temperature: number | undefined } {
  const model = typeof params[MODEL_SETTING] === "string" && (params[MODEL_SETTING] as string).trim() ? (params[MODEL_SETTING] as string).trim() : target.defaultModel;
  const temperature = typeof params[TEMPERATURE_SETTING] === "number" ? (params[TEMPERATURE_SETTING] as number) : undefined;
  return { model, temperature };
}

/** The reason an evaluator is blocked for a failure. */
function blockReason(connectionName: string, failure: ProviderFailure): string {
  return `${failure.code} from connection "${connectionName}": ${failure.message}`;
}

/** Builds the judge executor. */
export function createJudgeExecutor(deps: JudgeExecutorDeps): EvaluatorExecutor {
  const now = deps.now ?? Date.now;
  const call = deps.call ?? ((target, request, options) => callJudge(target, request, options, now));

  return {
    async execute(subject, items, onStart): Promise<ExecutedBatch> {
      const judge: JudgeDefinition | null = judgeOf(subject.version);
      const none = { libraryVersions: {}, startedAt: new Date(now()) };
      if (!judge) return { ...none, results: items.map(() => faultResult("NotAJudge", "the template version has no judge (it is not an llm template)")), final: true };
      if (!subject.connectionId) return { ...none, results: items.map(() => faultResult("NoConnection", "the judge evaluator has no connection")), final: true };
      let target: JudgeCallTarget;
      try {
        target = await deps.callTargetOf(subject.workspaceId, subject.connectionId);
      } catch (error) {
        // A connection gone or a key that no longer opens (CONNECTION_KEYS changed): retried, never the user's fault.
        const message = error instanceof Error ? error.message : String(error);
        deps.logger.warn({ workspaceId: subject.workspaceId, evaluatorId: subject.evaluatorId, connectionId: subject.connectionId, err: message }, "judge connection unusable");
        return { ...none, results: items.map(() => faultResult("ConnectionUnavailable", message)) };
      }
      const { model, temperature } = modelOf(subject.params, target);
      // A prompt too large to send is the template's fault on that document: an invalid_result, no call.
      const rendered = items.map((item) => {
        try {
          return renderMessages(judge.messages, item.document, subject.params);
        } catch (error) {
          if (error instanceof PromptTooLargeError) return error;
          throw error;
        }
      });
      const keys = rendered.map((messages) =>
        messages instanceof PromptTooLargeError ? "" : cacheKeyOf({ workspaceId: subject.workspaceId, connectionId: target.id, templateVersionId: subject.version.id, model, temperature, params: subject.params, messages }),
      );
      const cached = judge.cacheTtlSeconds > 0 ? await readCached(deps.prisma, subject.workspaceId, keys.filter(Boolean), new Date(now())) : new Map();
      await onStart?.();
      const startedAt = new Date(now());

      const results: ItemResult[] = new Array(items.length);
      const usage: (RunUsage | null)[] = new Array(items.length).fill(null);
      const deferUntil: (number | null)[] = new Array(items.length).fill(null);
      const toCache: { key: string; answer: unknown; model: string }[] = [];
      // Read once, when the first answer comes back (a batch served by the cache reads no price).
      let pricing: ReturnType<JudgeExecutorDeps["pricingOf"]> | undefined;
      let terminal = null as ProviderFailure | null;
      // The first call of each prompt of the batch (cache key → its answer).
      const inBatch = new Map<string, Promise<JudgeAnswer | null>>();

      await Promise.all(
        items.map(async (_item, i) => {
          const prompt = rendered[i]!;
          if (prompt instanceof PromptTooLargeError) {
            results[i] = { outcome: "invalid_result", scores: [], stdout: "", stderr: "", error: { type: "PromptTooLarge", message: prompt.message, traceback: "" }, durationMs: 0 };
            return;
          }
          /** Serves the item from an earlier answer (the cache, or this batch's first call of the prompt), when it still checks out. */
          const served = (earlier: { answer: unknown; model: string }): boolean => {
            const checked = scoresOfAnswer(judge.output, earlier.answer);
            if (!checked.ok) return false;
            results[i] = { outcome: "ok", scores: checked.scores, stdout: "", stderr: "", durationMs: 0 };
            usage[i] = { model: earlier.model, inputTokens: 0, outputTokens: 0, costUsd: 0, priceSource: null, cached: true, providerMs: 0 };
            deps.onCall?.("cache_hit");
            return true;
          };
          const hit = cached.get(keys[i]!);
          if (hit && served(hit)) return;
          // The same prompt twice in one batch makes one call: the second is served as a cache hit.
          const first = inBatch.get(keys[i]!);
          if (first !== undefined && judge.cacheTtlSeconds > 0) {
            const earlier = await first;
            if (earlier?.ok && served(earlier)) return;
          }
          // A call that is still waiting when an earlier one hit a terminal failure is not made.
          const calling = deps.semaphore.run(target.id, target.maxConcurrentRequests, () =>
            terminal ? Promise.resolve(null) : call(target, { messages: prompt, definition: judge.output, model, ...(temperature !== undefined ? { temperature } : {}), maxOutputTokens: judge.maxOutputTokens }, deps.callOptions),
          );
          if (first === undefined) inBatch.set(keys[i]!, calling);
          const answer = await calling;
          if (answer === null) {
            results[i] = faultResult("ProviderError", `not called: ${blockReason(target.name, terminal!)}`);
            return;
          }
          if (!answer.ok) {
            const failure = answer.error;
            if (TERMINAL_FAILURES.includes(failure.code)) terminal ??= failure;
            if (failure.code === "rate_limited") deferUntil[i] = now() + retryDelayMs(failure.retryAfterSeconds);
            results[i] = faultResult(`ProviderError:${failure.code}`, failure.message, answer.latencyMs);
            deps.onCall?.(failure.code, answer.latencyMs / 1000);
            return;
          }
          // A server that reports no usage (some local ones) gives no cost: never a guess.
          const cost = answer.usage ? (await (pricing ??= deps.pricingOf(subject.workspaceId)))(answer.model, answer.usage) : { costUsd: null, priceSource: null };
          usage[i] = { model: answer.model, inputTokens: answer.usage?.inputTokens ?? 0, outputTokens: answer.usage?.outputTokens ?? 0, ...cost, cached: false, providerMs: answer.latencyMs };
          const checked = scoresOfAnswer(judge.output, answer.answer);
          if (!checked.ok) {
            results[i] = { outcome: "invalid_result", scores: [], stdout: "", stderr: "", error: { type: "InvalidJudgeAnswer", message: checked.message, traceback: "" }, durationMs: answer.latencyMs };
            deps.onCall?.("invalid_answer", answer.latencyMs / 1000);
            return;
          }
          results[i] = { outcome: "ok", scores: checked.scores, stdout: "", stderr: "", durationMs: answer.latencyMs };
          deps.onCall?.("ok", answer.latencyMs / 1000);
          toCache.push({ key: keys[i]!, answer: answer.answer, model: answer.model });
        }),
      );
      await writeCached(deps.prisma, subject.workspaceId, toCache, judge.cacheTtlSeconds, new Date(now()));
      if (terminal) {
        const reason = blockReason(target.name, terminal);
        // onTerminal logs the block (evaluators/blocking.ts); a draft has no evaluator to block.
        if (subject.evaluatorId) await deps.onTerminal(subject.evaluatorId, reason);
      }
      return { results, libraryVersions: {}, startedAt, usage, deferUntil, final: terminal !== null };
    },
  };
}
