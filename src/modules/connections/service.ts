import { randomUUID } from "node:crypto";
import type { Connection, Prisma } from "../../generated/prisma/client.js";
import type { ConnectionProvider } from "../../lib/closed-lists.js";
import { AppError, BadUserInputError, ConflictError, LimitExceededError, NotFoundError } from "../../lib/errors.js";
import type { KeyRing, SealedValue } from "../../lib/key-ring.js";
import type { Logger } from "../../lib/logger.js";
import type { Principal } from "../../lib/principal.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { withUniqueName } from "../../lib/unique-violation.js";
import { isUuid } from "../../lib/uuid.js";
import { parseIssues } from "../../lib/validation.js";
import { probeProvider, type ProbeResult, type ProviderCallOptions, type ProviderTarget } from "./providers.js";
import {
  connectionIdInputSchema,
  createConnectionInputSchema,
  DEFAULT_MAX_CONCURRENT_REQUESTS,
  MAX_CONNECTIONS_PER_WORKSPACE,
  testConnectionInputSchema,
  updateConnectionInputSchema,
} from "./schemas.js";

export type { Connection } from "../../generated/prisma/client.js";
export type { ProviderFailure } from "./providers.js";

/** What testConnection answers: the connection, and whether its key and model work. */
export interface ConnectionTestResult extends ProbeResult {
  connection: Connection;
}

/** What reencryptConnections did. */
export interface ReencryptReport {
  /** Connections sealed again with the current key. */
  reencrypted: number;
  /** Connections already under the current key. */
  current: number;
  /** Connections whose key could not be opened (their key id is not in CONNECTION_KEYS, or the value is damaged): left as they are. */
  failed: { id: string; keyId: string; reason: string }[];
}

/** What the connections service needs. */
export interface ConnectionServiceDeps {
  prisma: PrismaClient;
  logger: Logger;
  /** CONNECTION_KEYS; undefined: connections can be read and deleted, but no key can be stored or used. */
  keyRing: KeyRing | undefined;
  /** How testConnection calls the provider (default: no retry, 15 s). */
  probe?: Partial<ProviderCallOptions>;
  /** The provider call (tests and the judge executor may wrap it); default: the official SDKs. */
  callProvider?: (target: ProviderTarget, options: ProviderCallOptions) => Promise<ProbeResult>;
}

/** Keys shorter than this show no hint (4 characters of a short key are too much of it). */
export const MIN_KEY_LENGTH_FOR_HINT = 12;

/** What is shown of a key: its last 4 characters, or "" for a key shorter than {@link MIN_KEY_LENGTH_FOR_HINT}. */
export function keyHintOf(apiKey: string): string {
  return apiKey.length >= MIN_KEY_LENGTH_FOR_HINT ? apiKey.slice(-4) : "";
}

/** The sealed-key columns of a connection. */
function keyColumns(sealed: SealedValue, apiKey: string) {
  return { keyCiphertext: sealed.ciphertext, keyIv: sealed.iv, keyAuthTag: sealed.authTag, keyId: sealed.keyId, keyHint: keyHintOf(apiKey) };
}

/** The error of a service without CONNECTION_KEYS (or without the key a connection was sealed with). */
function keysMissing(what: string): AppError {
  return new AppError("SERVICE_UNAVAILABLE", `${what}: the service's CONNECTION_KEYS is not set (docs/connections.md § The encryption key)`, { retryable: false });
}

/**
 * Connections of a workspace to LLM providers (docs/connections.md): CRUD, the API key sealed
 * with AES-256-GCM under CONNECTION_KEYS (the connection id as additional data, so a sealed key
 * copied onto another row does not open), testConnection through the official SDKs, and the
 * re-encryption of every key under the current key (rotation). The plain key leaves this service
 * only towards the provider: never in a return value, a log line or an error.
 */
export function createConnectionService(deps: ConnectionServiceDeps) {
  const { prisma, logger, keyRing } = deps;
  const probeOptions: ProviderCallOptions = { maxRetries: deps.probe?.maxRetries ?? 0, timeoutMs: deps.probe?.timeoutMs ?? 15_000, allowPrivate: deps.probe?.allowPrivate ?? false };
  const callProvider = deps.callProvider ?? probeProvider;

  async function findConnection(workspaceId: string, id: string): Promise<Connection> {
    const found = isUuid(id) ? await prisma.connection.findFirst({ where: { id, workspaceId } }) : null;
    if (!found) throw new NotFoundError("connection", id);
    return found;
  }

  function sealKey(apiKey: string, connectionId: string) {
    if (!keyRing) throw keysMissing("cannot store the API key");
    return keyColumns(keyRing.seal(apiKey, connectionId), apiKey);
  }

  /** The plain key of a connection, for the provider call only. */
  function openKey(connection: Connection): string {
    if (!keyRing) throw keysMissing(`cannot use connection "${connection.name}"`);
    if (!keyRing.keyIds.includes(connection.keyId)) {
      throw new AppError("SERVICE_UNAVAILABLE", `cannot use connection "${connection.name}": its API key was sealed with key "${connection.keyId}", which CONNECTION_KEYS no longer lists (set the key again: updateConnection with apiKey)`, { retryable: false });
    }
    return keyRing.open({ ciphertext: connection.keyCiphertext, iv: connection.keyIv, authTag: connection.keyAuthTag, keyId: connection.keyId }, connection.id);
  }

  return {
    /** True when CONNECTION_KEYS is set (keys can be stored). */
    encrypts: keyRing !== undefined,

    /** Creates a connection with its key sealed. @throws BAD_USER_INPUT (each field and rule; a taken name), LIMIT_EXCEEDED, SERVICE_UNAVAILABLE without CONNECTION_KEYS. */
    async createConnection(principal: Principal, input: unknown): Promise<Connection> {
      const { data, issues } = parseIssues(createConnectionInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const id = randomUUID();
      const sealed = sealKey(data.apiKey, id);
      const count = await prisma.connection.count({ where: { workspaceId: principal.workspaceId } });
      if (count >= MAX_CONNECTIONS_PER_WORKSPACE) throw new LimitExceededError(`a workspace may have at most ${MAX_CONNECTIONS_PER_WORKSPACE} connections`);
      const connection = await withUniqueName("a connection", data.name, () =>
        prisma.connection.create({
          data: {
            id,
            workspaceId: principal.workspaceId,
            name: data.name,
            provider: data.provider,
            baseUrl: data.baseUrl ?? null,
            defaultModel: data.defaultModel,
            maxConcurrentRequests: data.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS,
            ...sealed,
          },
        }),
      );
      logger.info({ connectionId: id, workspaceId: principal.workspaceId, provider: data.provider, keyId: sealed.keyId }, "connection created");
      return connection;
    },

    /** Changes the given fields; `apiKey` replaces the key (sealed with the current key). @throws BAD_USER_INPUT, NOT_FOUND. */
    async updateConnection(principal: Principal, input: unknown): Promise<Connection> {
      const { data, issues } = parseIssues(updateConnectionInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const current = await findConnection(principal.workspaceId, data.id);
      const { id, apiKey, ...changes } = data;
      // The stored key goes only where it was given for: moving the connection needs the key again
      // (else anyone with an API key of the workspace could send it to a server of theirs).
      const moved = (["baseUrl", "provider"] as const).filter((k) => changes[k] !== undefined && changes[k] !== current[k]);
      if (moved.length && apiKey === undefined) {
        throw new BadUserInputError(moved.map((k) => ({ path: k, message: "changes where the key is sent: give apiKey with it (the stored key is never sent to a new destination)" })));
      }
      const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Prisma.ConnectionUpdateInput;
      const sealed = apiKey !== undefined ? sealKey(apiKey, current.id) : {};
      const connection = await withUniqueName("a connection", data.name, () => prisma.connection.update({ where: { id: current.id }, data: { ...given, ...sealed } }));
      logger.info({ connectionId: id, workspaceId: principal.workspaceId, keyRotated: apiKey !== undefined }, "connection updated");
      return connection;
    },

    /** Deletes a connection (its sealed key goes with it). @throws NOT_FOUND. */
    async deleteConnection(principal: Principal, input: unknown): Promise<Connection> {
      const { data, issues } = parseIssues(connectionIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const found = await findConnection(principal.workspaceId, data.id);
      await prisma.$transaction(async (tx) => {
        const users = await tx.evaluator.findMany({ where: { connectionId: found.id, archivedAt: null }, select: { id: true, name: true }, orderBy: { name: "asc" } });
        if (users.length) {
          throw new ConflictError(
            `connection "${found.name}" is used by ${users.length} evaluator(s): ${users.map((u) => `"${u.name}"`).join(", ")}. Move them to another connection or archive them first.`,
            users.map((u) => ({ recordType: "Evaluator" as const, evaluator: u.name, id: u.id, reason: "calls this connection" })),
          );
        }
        // Archived evaluators keep their runs; they lose the connection they can no longer use.
        await tx.evaluator.updateMany({ where: { connectionId: found.id }, data: { connectionId: null } });
        await tx.connection.delete({ where: { id: found.id } });
      });
      logger.info({ connectionId: found.id, workspaceId: principal.workspaceId }, "connection deleted");
      return found;
    },

    /**
     * The connection id an input names with `connectionId` or `connectionName` (undefined for neither).
     * @throws BadUserInputError for both; NotFoundError for an unknown name.
     */
    async connectionIdOf(principal: Principal, input: { connectionId?: string | null; connectionName?: string | null }): Promise<string | undefined> {
      if (input.connectionId != null && input.connectionName != null) throw new BadUserInputError([{ path: "connectionName", message: "give connectionId or connectionName, not both" }]);
      if (input.connectionId != null) return input.connectionId;
      if (input.connectionName == null) return undefined;
      const found = await prisma.connection.findUnique({ where: { workspaceId_name: { workspaceId: principal.workspaceId, name: input.connectionName } }, select: { id: true } });
      if (!found) throw new NotFoundError("connection", input.connectionName);
      return found.id;
    },

    /**
     * What a judge's calls use: the connection's provider, base URL, opened key, default model and
     * concurrency. For the judge executor only: the key never leaves the worker process.
     * @throws NOT_FOUND for a connection gone; SERVICE_UNAVAILABLE when the key cannot be opened.
     */
    async callTargetOf(workspaceId: string, connectionId: string): Promise<{ id: string; name: string; provider: ConnectionProvider; baseUrl: string | null; apiKey: string; defaultModel: string; maxConcurrentRequests: number }> {
      const connection = await findConnection(workspaceId, connectionId);
      return {
        id: connection.id, name: connection.name, provider: connection.provider as ConnectionProvider, baseUrl: connection.baseUrl, apiKey: openKey(connection),
        defaultModel: connection.defaultModel, maxConcurrentRequests: connection.maxConcurrentRequests,
      };
    },

    /** One connection of the workspace. @throws NOT_FOUND. */
    async getConnection(principal: Principal, input: unknown): Promise<Connection> {
      const { data, issues } = parseIssues(connectionIdInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      return findConnection(principal.workspaceId, data.id);
    },

    /** The workspace's connections by name; `page` is the caller's pagination and selection. */
    async listConnections(principal: Principal, page: Omit<Prisma.ConnectionFindManyArgs, "where" | "orderBy"> = {}): Promise<Connection[]> {
      return prisma.connection.findMany({ ...page, where: { workspaceId: principal.workspaceId }, orderBy: [{ name: "asc" }, { id: "asc" }] }) as Promise<Connection[]>;
    },

    /**
     * Calls the provider once with the connection's key and model (or `model`): a 1-token chat
     * completion or message. Answers whether it worked and why not (invalid_key, unknown_model,
     * rate_limited with the Retry-After, unreachable, …); the provider's message is kept with any
     * echo of the key removed. @throws NOT_FOUND; SERVICE_UNAVAILABLE when the key cannot be opened.
     */
    async testConnection(principal: Principal, input: unknown): Promise<ConnectionTestResult> {
      const { data, issues } = parseIssues(testConnectionInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const connection = await findConnection(principal.workspaceId, data.id);
      const apiKey = openKey(connection);
      const result = await callProvider({ provider: connection.provider as ConnectionProvider, baseUrl: connection.baseUrl, apiKey, model: data.model ?? connection.defaultModel }, probeOptions);
      logger.info({ connectionId: connection.id, ok: result.ok, errorCode: result.error?.code ?? null, status: result.error?.status ?? null, latencyMs: result.latencyMs }, "connection tested");
      return { connection, ...result };
    },

    /**
     * Seals every connection's key (of every workspace) again with the current key of
     * CONNECTION_KEYS, the step of a rotation between adding the new key first and dropping the
     * old one (`npm run connections:reencrypt`). Each row is rewritten on its own, only if its
     * key id is still the one read; one that does not open is reported and left.
     */
    async reencryptConnections(): Promise<ReencryptReport> {
      if (!keyRing) throw keysMissing("cannot re-encrypt connection keys");
      const report: ReencryptReport = { reencrypted: 0, current: 0, failed: [] };
      const rows = await prisma.connection.findMany({ select: { id: true, keyId: true, keyCiphertext: true, keyIv: true, keyAuthTag: true }, orderBy: { id: "asc" } });
      for (const row of rows) {
        if (row.keyId === keyRing.currentKeyId) {
          report.current++;
          continue;
        }
        let plain: string;
        try {
          plain = keyRing.open({ ciphertext: row.keyCiphertext, iv: row.keyIv, authTag: row.keyAuthTag, keyId: row.keyId }, row.id);
        } catch (error) {
          report.failed.push({ id: row.id, keyId: row.keyId, reason: (error as Error).message });
          continue;
        }
        const sealed = keyRing.seal(plain, row.id);
        const updated = await prisma.connection.updateMany({
          where: { id: row.id, keyId: row.keyId, keyCiphertext: row.keyCiphertext },
          data: { keyCiphertext: sealed.ciphertext, keyIv: sealed.iv, keyAuthTag: sealed.authTag, keyId: sealed.keyId },
        });
        if (updated.count === 1) report.reencrypted++;
        else report.current++; // changed meanwhile (a new key set with updateConnection, or deleted): nothing left to re-seal
      }
      logger.info({ reencrypted: report.reencrypted, current: report.current, failed: report.failed.length, keyId: keyRing.currentKeyId }, "connection keys re-encrypted");
      return report;
    },
  };
}

/** The connections service. */
export type ConnectionService = ReturnType<typeof createConnectionService>;
