import type { Logger } from "../../lib/logger.js";
import type { PrismaClient, Tx } from "../../lib/prisma.js";
import { isUuid } from "../../lib/uuid.js";

/**
 * Blocked evaluators. An evaluator that calls a model through a connection (kindTraits(kind).usesConnection)
 * is blocked when the provider answers with an error no retry can fix: the key is invalid, the model
 * unknown, the quota exhausted. While blocked (`Evaluator.blockedAt` set) its runs are recorded as
 * skipped with {@link blockedSkipReason}, and stats, explainMatch, the CLI, MCP and `/metrics` say so,
 * until someone unblocks it (the evaluators service's `unblockEvaluator`). The first reason is kept:
 * blocking an evaluator already blocked changes nothing. docs/evaluation.md § Blocked evaluators.
 */

/** Every skip reason of a run left out because its evaluator is blocked starts with this (stats count them). */
export const BLOCKED_REASON_PREFIX = "the evaluator is blocked";

/** Most characters of a blocked reason kept (the rest is cut, with `…`). */
export const MAX_BLOCKED_REASON_CHARS = 1_000;

/** What looks like a credential in a provider's message: `sk-…`/`oodle_sk_…` keys, a bearer token, a `key=…` query parameter. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\b(?:oodle_sk_|sk-(?:ant-|proj-)?)[A-Za-z0-9_*.-]{6,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /([?&](?:api[_-]?key|key|token)=)[^&\s]+/gi,
];

/**
 * A blocked reason as stored: what looks like a credential replaced by `[redacted]` (a provider
 * may echo part of the key it refused), U+0000 replaced (Postgres refuses it in text), trimmed,
 * and cut to {@link MAX_BLOCKED_REASON_CHARS} characters (ending with `…` when cut).
 * An empty reason becomes "the provider refused the call".
 */
export function blockedReasonOf(reason: string): string {
  let text = reason.replaceAll("\u0000", "\uFFFD").trim();
  for (const pattern of SECRET_PATTERNS) text = text.replace(pattern, (_m, prefix?: unknown) => `${typeof prefix === "string" ? prefix : ""}[redacted]`);
  if (text === "") text = "the provider refused the call";
  return text.length <= MAX_BLOCKED_REASON_CHARS ? text : `${text.slice(0, MAX_BLOCKED_REASON_CHARS - 1)}…`;
}

/**
 * Blocks an evaluator: sets `blockedAt` (now) and `blockedReason` when it is not blocked yet, in one
 * `UPDATE … WHERE "blockedAt" IS NULL`, so that concurrent callers block it once and the first
 * reason is kept. `updatedAt` is left as it is (blocking changes no rule: explainMatch's
 * ruleChangedSinceIngest stays true to the rule). Logs at warn (evaluatorId, workspaceId, reason)
 * when it blocked now; the reason is stored as {@link blockedReasonOf} gives it, so never a key.
 *
 * @param db - the Prisma client, or a transaction's client (the block then commits with it).
 * @param evaluatorId - the evaluator's raw id (not a global id); an unknown id (or one that is no UUID) blocks nothing.
 * @param reason - why, for people: the provider's terminal error (e.g. `invalid_api_key: HTTP 401 from openai`).
 * @param logger - where the warning goes; absent: no log line (the evaluators service's own `blockEvaluator` passes its logger).
 * @returns true when this call blocked it; false when it was already blocked (its first reason kept) or does not exist.
 */
export async function blockEvaluator(db: PrismaClient | Tx, evaluatorId: string, reason: string, logger?: Pick<Logger, "warn">): Promise<boolean> {
  if (!isUuid(evaluatorId)) return false;
  const stored = blockedReasonOf(reason);
  const rows = await db.$queryRaw<{ workspaceId: string }[]>`
    UPDATE "Evaluator" SET "blockedAt" = now(), "blockedReason" = ${stored}
    WHERE "id" = ${evaluatorId}::uuid AND "blockedAt" IS NULL
    RETURNING "workspaceId"`;
  const row = rows[0];
  if (!row) return false;
  logger?.warn({ evaluatorId, workspaceId: row.workspaceId, reason: stored }, "evaluator blocked: its runs are skipped until it is unblocked");
  return true;
}

/**
 * Clears `blockedAt` and `blockedReason` (nothing else; `updatedAt` stays).
 * @returns true when it was blocked.
 */
export async function clearBlock(db: PrismaClient | Tx, evaluatorId: string): Promise<boolean> {
  if (!isUuid(evaluatorId)) return false;
  const cleared = await db.$executeRaw`UPDATE "Evaluator" SET "blockedAt" = NULL, "blockedReason" = NULL WHERE "id" = ${evaluatorId}::uuid AND "blockedAt" IS NOT NULL`;
  return cleared > 0;
}

/**
 * The skip reason of a run while the evaluator is blocked:
 * `the evaluator is blocked since 2026-12-06T21:00:00.000Z: invalid_api_key …; unblock it with unblockEvaluator`
 * (starts with {@link BLOCKED_REASON_PREFIX}).
 * @returns null when it is not blocked.
 */
export function blockedSkipReason(evaluator: { blockedAt?: Date | null; blockedReason?: string | null }): string | null {
  if (!evaluator.blockedAt) return null;
  return `${BLOCKED_REASON_PREFIX} since ${evaluator.blockedAt.toISOString()}: ${evaluator.blockedReason ?? "no reason was recorded"}; unblock it with unblockEvaluator`;
}

/** Whether a skip reason is one of a blocked evaluator ({@link blockedSkipReason}). */
export function isBlockedSkipReason(skipReason: string | null | undefined): boolean {
  return typeof skipReason === "string" && skipReason.startsWith(BLOCKED_REASON_PREFIX);
}

/** Live (not archived) blocked evaluators over every workspace (the `oodle_evaluators_blocked` gauge). */
export async function countBlockedEvaluators(db: PrismaClient | Tx): Promise<number> {
  return db.evaluator.count({ where: { blockedAt: { not: null }, archivedAt: null } });
}
