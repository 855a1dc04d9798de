import { z } from "zod";
import type { Prisma } from "../../generated/prisma/client.js";
import { BadUserInputError, NotFoundError } from "../../lib/errors.js";
import { isPlainObject, type ParamSpec } from "./settings.js";

/** A Prisma transaction client. */
export type Tx = Prisma.TransactionClient;

const uuid = z.uuid();

/** Stands in for a malformed id in a lookup: a UUID that matches no record. */
export const NIL_UUID = "00000000-0000-0000-0000-000000000000";

/** True for a well-formed UUID; anything else cannot name a record (NOT_FOUND, not a database error). */
export function isUuid(id: string): boolean {
  return uuid.safeParse(id).success;
}

/** A UUID from a decoded global id, or {@link NIL_UUID} (matches nothing) when it is malformed. */
export function uuidOrNil(id: string): string {
  return isUuid(id) ? id : NIL_UUID;
}

/** The settings stored on a template version. */
export function specsOf(version: { params: Prisma.JsonValue }): ParamSpec[] {
  return (version.params ?? []) as unknown as ParamSpec[];
}

/** An object stored in a JSON column (evaluator values, attribute rules); `{}` for anything else. */
export function objectOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** A value for a JSON column. */
export function asJson(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/**
 * Locks a live template of the workspace for the rest of the transaction: `FOR UPDATE` while its
 * settings change or it is deleted, `FOR SHARE` while an evaluator is checked against it, so a
 * settings change and an evaluator save never pass each other's checks.
 * @throws NotFoundError for an unknown, deleted or foreign template.
 */
export async function lockTemplate(tx: Tx, workspaceId: string, templateId: string, mode: "update" | "share"): Promise<void> {
  if (!isUuid(templateId)) throw new NotFoundError("template", templateId);
  const rows =
    mode === "update"
      ? await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Template" WHERE id = ${templateId}::uuid AND "workspaceId" = ${workspaceId}::uuid AND "deletedAt" IS NULL FOR UPDATE`
      : await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Template" WHERE id = ${templateId}::uuid AND "workspaceId" = ${workspaceId}::uuid AND "deletedAt" IS NULL FOR SHARE`;
  if (rows.length === 0) throw new NotFoundError("template", templateId);
}

/** True for Prisma's unique-constraint violation (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

/**
 * Runs a write and turns a unique violation of the live name into BAD_USER_INPUT at `name`
 * (the pre-check can race with a concurrent save; the unique index decides).
 */
export async function withUniqueName<T>(what: string, name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error) && name !== undefined) {
      throw new BadUserInputError([{ path: "name", message: `${what} named "${name}" already exists in this workspace` }]);
    }
    throw error;
  }
}
