import type { Prisma } from "../../generated/prisma/client.js";
import { NotFoundError } from "../../lib/errors.js";
import type { Tx } from "../../lib/prisma.js";
import { isUuid } from "../../lib/uuid.js";
import type { ParamSpec } from "./settings.js";

/** The settings stored on a template version. */
export function specsOf(version: { params: Prisma.JsonValue }): ParamSpec[] {
  return (version.params ?? []) as unknown as ParamSpec[];
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

