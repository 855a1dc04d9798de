import type { PrismaClient } from "../../lib/prisma.js";
import { BadUserInputError, NotFoundError, toInputIssues } from "../../lib/errors.js";
import type { Queues } from "../../queues/queues.js";
import type { Logger } from "../../lib/logger.js";
import type { ApiKeyPrincipal } from "../../lib/principal.js";
import { displayPrefix, hashSecret, newSecret } from "./keys.js";
import { apiKeyNameSchema, workspaceNameSchema } from "./schemas.js";

/** What the caller sees of an API key (never the secret or its hash). */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const apiKeySelect = { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

/** How often the last-used time of a key is written, at most (ms). */
const USAGE_RESOLUTION_MS = 60_000;

/**
 * Workspaces and their API keys. Secrets are returned once, at creation; only their SHA-256 is stored.
 * Every method that takes a workspaceId scopes reads and writes to it: another workspace's key is NOT_FOUND.
 */
export function createWorkspaceService(deps: { prisma: PrismaClient; queues: Queues; logger: Logger }) {
  const { prisma, queues, logger } = deps;

  function parse<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }, value: unknown, field: string): T {
    const result = schema.safeParse(value);
    if (!result.success) throw new BadUserInputError(toInputIssues(result.error.issues, field));
    return result.data;
  }

  return {
    /** Creates a workspace and its first key, in one transaction. @returns the secret, shown once. */
    async createWorkspace(name: string, keyName = "first key") {
      const workspaceName = parse(workspaceNameSchema, name, "name");
      const secret = newSecret();
      const workspace = await prisma.workspace.create({
        data: { name: workspaceName, apiKeys: { create: { name: keyName, prefix: displayPrefix(secret), secretHash: hashSecret(secret) } } },
        include: { apiKeys: { select: apiKeySelect } },
      });
      return { workspace: { id: workspace.id, name: workspace.name }, apiKey: workspace.apiKeys[0]!, secret };
    },

    /** Finds a workspace by name or creates it (used by `npm start` for the local workspace). */
    async findOrCreateWorkspace(name: string) {
      const existing = await prisma.workspace.findFirst({ where: { name }, orderBy: { createdAt: "asc" } });
      return existing ?? prisma.workspace.create({ data: { name: parse(workspaceNameSchema, name, "name") } });
    },

    /** The workspace of a principal. */
    async getWorkspace(workspaceId: string) {
      return prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { id: true, name: true, createdAt: true } });
    },

    /** Creates an API key in the workspace. @returns the key and its secret (shown once). */
    async createApiKey(workspaceId: string, name: string): Promise<{ apiKey: ApiKeyView; secret: string }> {
      const keyName = parse(apiKeyNameSchema, name, "name");
      const secret = newSecret();
      const apiKey = await prisma.apiKey.create({
        data: { workspaceId, name: keyName, prefix: displayPrefix(secret), secretHash: hashSecret(secret) },
        select: apiKeySelect,
      });
      return { apiKey, secret };
    },

    /** Revokes a key of the workspace (idempotent). @throws NotFoundError for an unknown or foreign id. */
    async revokeApiKey(workspaceId: string, id: string): Promise<ApiKeyView> {
      const updated = await prisma.apiKey.updateManyAndReturn({
        where: { id, workspaceId },
        data: { revokedAt: new Date() },
        select: apiKeySelect,
      });
      if (!updated[0]) throw new NotFoundError("API key", id);
      return updated[0];
    },

    /** Reads one key of the workspace, or null (a foreign id reads as absent). */
    async findApiKey(workspaceId: string, id: string): Promise<ApiKeyView | null> {
      return prisma.apiKey.findFirst({ where: { id, workspaceId }, select: apiKeySelect });
    },

    /**
     * The principal of a bearer secret, or null when it is unknown or revoked. Records the use
     * through the queue, at most once a minute per key; a queue failure does not fail the request.
     */
    async authenticate(secret: string): Promise<ApiKeyPrincipal | null> {
      const key = await prisma.apiKey.findUnique({
        where: { secretHash: hashSecret(secret) },
        select: { id: true, workspaceId: true, revokedAt: true, lastUsedAt: true },
      });
      if (!key || key.revokedAt) return null;
      const now = new Date();
      if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > USAGE_RESOLUTION_MS) {
        const minute = Math.floor(now.getTime() / USAGE_RESOLUTION_MS);
        queues
          .add("api-key-usage", { apiKeyId: key.id, usedAt: now.toISOString() }, { jobId: `${key.id}-${minute}` })
          .catch((error: unknown) => logger.warn({ err: error, apiKeyId: key.id }, "could not enqueue API key usage"));
      }
      return { workspaceId: key.workspaceId, apiKeyId: key.id };
    },

    /** Job processor of "api-key-usage": idempotent (only moves lastUsedAt forward). */
    async recordApiKeyUsage(apiKeyId: string, usedAt: Date): Promise<void> {
      await prisma.apiKey.updateMany({
        where: { id: apiKeyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: usedAt } }] },
        data: { lastUsedAt: usedAt },
      });
    },
  };
}

/** The workspaces service. */
export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
