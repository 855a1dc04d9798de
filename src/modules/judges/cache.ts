import { createHash } from "node:crypto";
import { canonicalJson } from "../../lib/canonical-json.js";
import type { PrismaClient } from "../../lib/prisma.js";
import type { JudgeMessage } from "./prompt.js";

/**
 * The judges' result cache (issue 30): an answer is reused for the same workspace, connection,
 * template version, model, temperature, setting values and rendered prompt (the messages as sent, which
 * hold the document) within the version's `cacheTtlSeconds`. Only answers that passed the output
 * check are kept, so a hit never serves a malformed answer; a hit is still checked again (the
 * check is cheap and the row is data). Rows past their expiry are ignored and purged by
 * {@link purgeExpired}.
 */

/** What one judge call asks, for its key. */
export interface CacheKeyParts {
  workspaceId: string;
  /** The connection called (another connection's server may answer otherwise, even under the same model name). */
  connectionId: string;
  templateVersionId: string;
  model: string;
  temperature: number | undefined;
  params: Readonly<Record<string, unknown>>;
  messages: readonly JudgeMessage[];
}

/** The cache key of a call: SHA-256 (hex) of its parts, canonical JSON. */
export function cacheKeyOf(parts: CacheKeyParts): string {
  return createHash("sha256")
    .update(canonicalJson([parts.workspaceId, parts.connectionId, parts.templateVersionId, parts.model, parts.temperature ?? null, parts.params, parts.messages]))
    .digest("hex");
}

/** A cached answer. */
export interface CachedAnswer {
  answer: unknown;
  model: string;
}

/**
 * The unexpired answers of `keys` in the workspace, in one query.
 * @returns key → answer (absent keys are misses).
 */
export async function readCached(prisma: PrismaClient, workspaceId: string, keys: readonly string[], now: Date): Promise<Map<string, CachedAnswer>> {
  if (keys.length === 0) return new Map();
  const rows = await prisma.judgeCacheEntry.findMany({ where: { key: { in: [...new Set(keys)] }, workspaceId, expiresAt: { gt: now } }, select: { key: true, answer: true, model: true } });
  return new Map(rows.map((r) => [r.key, { answer: r.answer, model: r.model }]));
}

/**
 * Keeps answers for `ttlSeconds` (a later answer for the same key replaces an earlier one), in one statement.
 * @param entries - key, the answer as the provider gave it, the model that answered.
 */
export async function writeCached(prisma: PrismaClient, workspaceId: string, entries: readonly { key: string; answer: unknown; model: string }[], ttlSeconds: number, now: Date): Promise<void> {
  if (entries.length === 0 || ttlSeconds <= 0) return;
  const unique = [...new Map(entries.map((e) => [e.key, e])).values()];
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await prisma.$executeRaw`
    INSERT INTO "JudgeCacheEntry" (key, "workspaceId", answer, model, "expiresAt")
    SELECT e.key, ${workspaceId}::uuid, e.answer, e.model, ${expiresAt}
    FROM jsonb_to_recordset(${JSON.stringify(unique.map((e) => ({ key: e.key, answer: e.answer ?? null, model: e.model })))}::jsonb) AS e(key text, answer jsonb, model text)
    ON CONFLICT (key) DO UPDATE SET answer = EXCLUDED.answer, model = EXCLUDED.model, "expiresAt" = EXCLUDED."expiresAt"`;
}

/** Deletes expired entries, at most `batch` at a time. @returns how many were deleted. */
export async function purgeExpired(prisma: PrismaClient, now: Date, batch = 10_000): Promise<number> {
  return prisma.$executeRaw`DELETE FROM "JudgeCacheEntry" WHERE key IN (SELECT key FROM "JudgeCacheEntry" WHERE "expiresAt" <= ${now} LIMIT ${batch})`;
}
