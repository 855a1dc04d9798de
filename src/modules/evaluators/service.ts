import type { Evaluator, TemplateVersion } from "../../generated/prisma/client.js";
import { BadUserInputError, NotFoundError, type InputIssue } from "../../lib/errors.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { parseIssues } from "../../lib/validation.js";
import { asJson, isUuid, lockTemplate, objectOf, specsOf, withUniqueName, type Tx } from "../templates/store.js";
import { resolveParams, validateValues } from "../templates/values.js";
import type { Principal } from "../workspaces/service.js";
import { createEvaluatorInputSchema, updateEvaluatorInputSchema } from "./schemas.js";

/** The raw input as an object, to reach fields that failed their schema. */
function rawFields(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
}

/**
 * The template version an evaluator runs with inside a save: its pin, else the latest.
 * Adds an issue at `pinnedVersion` when the pinned version does not exist.
 */
async function versionFor(tx: Tx, templateId: string, pinned: number | null, issues: InputIssue[]): Promise<TemplateVersion | null> {
  const template = await tx.template.findUniqueOrThrow({ where: { id: templateId } });
  const version = await tx.templateVersion.findUnique({
    where: { templateId_version: { templateId, version: pinned ?? template.latestVersion } },
  });
  if (!version) {
    issues.push({ path: "pinnedVersion", message: `template "${template.name}" has no version ${pinned} (its latest is ${template.latestVersion})` });
  }
  return version;
}

/**
 * Evaluators: a template, its own setting values and the spans it runs on. Values are checked
 * against the settings of the version the evaluator runs (its pin, else the template's latest)
 * on every save. Deleting archives. Every read and write is scoped to the caller's workspace.
 */
export function createEvaluatorService(deps: { prisma: PrismaClient; logger: Logger }) {
  const { prisma } = deps;

  /** The shared save: field rules, then (under a share lock on the template) pin and value rules. */
  async function save(principal: Principal, existing: Evaluator | null, input: unknown): Promise<Evaluator> {
    const schema = existing ? updateEvaluatorInputSchema : createEvaluatorInputSchema;
    const { data, issues } = parseIssues(schema, input);
    const raw = rawFields(input);
    const templateId = typeof raw.templateId === "string" ? raw.templateId : existing?.templateId;
    const name = data?.name ?? (typeof raw.name === "string" ? raw.name : undefined);
    return withUniqueName("an evaluator", name, () =>
      prisma.$transaction(async (tx) => {
        if (templateId === undefined) throw new BadUserInputError(issues);
        await lockTemplate(tx, principal.workspaceId, templateId, "share");
        const templateChanged = existing !== null && templateId !== existing.templateId;
        const pinned =
          "pinnedVersion" in raw ? (data?.pinnedVersion ?? null) : templateChanged ? null : (existing?.pinnedVersion ?? null);
        const version = await versionFor(tx, templateId, pinned, issues);
        const givenValues = "params" in raw ? raw.params : (existing?.params ?? {});
        const checked = version ? validateValues(specsOf(version), givenValues) : { values: {}, issues: [] };
        issues.push(...checked.issues);
        if (issues.length || !data) throw new BadUserInputError(issues);
        const fields = {
          ...(data.name !== undefined ? { name: data.name, liveName: data.name } : {}),
          templateId,
          pinnedVersion: pinned,
          params: asJson(checked.values),
          ...(data.enabled !== undefined ? { enabled: data.enabled } : {}),
          ...(data.spanKind !== undefined ? { spanKind: data.spanKind } : {}),
          ...(data.spanNamePattern !== undefined ? { spanNamePattern: data.spanNamePattern } : {}),
          ...(data.attributeEquals !== undefined ? { attributeEquals: asJson(data.attributeEquals) } : {}),
          ...(data.samplingRate !== undefined ? { samplingRate: data.samplingRate } : {}),
        };
        if (existing) return tx.evaluator.update({ where: { id: existing.id }, data: fields });
        return tx.evaluator.create({ data: { ...fields, workspaceId: principal.workspaceId, name: data.name!, liveName: data.name! } });
      }),
    );
  }

  /** A live evaluator of the workspace, for a write. @throws NotFoundError. */
  async function liveEvaluator(workspaceId: string, id: string): Promise<Evaluator> {
    const evaluator = isUuid(id) ? await prisma.evaluator.findFirst({ where: { id, workspaceId, archivedAt: null } }) : null;
    if (!evaluator) throw new NotFoundError("evaluator", id);
    return evaluator;
  }

  /** The template version the evaluator runs now: its pin, else the template's latest. */
  async function runVersion(evaluator: Pick<Evaluator, "templateId" | "pinnedVersion">): Promise<TemplateVersion> {
    const template = await prisma.template.findUniqueOrThrow({ where: { id: evaluator.templateId } });
    return prisma.templateVersion.findUniqueOrThrow({
      where: { templateId_version: { templateId: evaluator.templateId, version: evaluator.pinnedVersion ?? template.latestVersion } },
    });
  }

  return {
    /**
     * Creates an evaluator. Its values are checked against the settings of the version it runs:
     * a wrong type, a name the template does not declare, a missing required value with no
     * default — each refused at `params.<name>`. @throws BadUserInputError, NotFoundError (template).
     */
    async createEvaluator(principal: Principal, input: unknown): Promise<Evaluator> {
      return save(principal, null, input);
    },

    /**
     * Changes a live evaluator: only the given fields. Its values (given or kept) are checked
     * again against the version it will run, so a new template or pin cannot leave bad values.
     */
    async updateEvaluator(principal: Principal, id: string, input: unknown): Promise<Evaluator> {
      return save(principal, await liveEvaluator(principal.workspaceId, id), input);
    },

    /** Archives an evaluator: it stops running, its name is freed, its runs and scores stay readable. Idempotent. */
    async deleteEvaluator(principal: Principal, id: string): Promise<Evaluator> {
      const evaluator = isUuid(id) ? await prisma.evaluator.findFirst({ where: { id, workspaceId: principal.workspaceId } }) : null;
      if (!evaluator) throw new NotFoundError("evaluator", id);
      if (evaluator.archivedAt) return evaluator;
      return prisma.evaluator.update({ where: { id }, data: { archivedAt: new Date(), liveName: null } });
    },

    /** An evaluator of the workspace by id (archived ones too) or by name (live ones), or null. */
    async findEvaluator(workspaceId: string, by: { id?: string; name?: string }): Promise<Evaluator | null> {
      if (by.id !== undefined) return isUuid(by.id) ? prisma.evaluator.findFirst({ where: { id: by.id, workspaceId } }) : null;
      if (by.name !== undefined) return prisma.evaluator.findUnique({ where: { workspaceId_liveName: { workspaceId, liveName: by.name } } });
      return null;
    },

    /** The template version the evaluator runs now: its pin, else the template's latest. */
    runVersion,

    /** ctx.params of the evaluator's next run: value → default → null for every declared setting. */
    async resolvedParams(evaluator: Pick<Evaluator, "templateId" | "pinnedVersion" | "params">): Promise<Record<string, unknown>> {
      const version = await runVersion(evaluator);
      return resolveParams(specsOf(version), objectOf(evaluator.params));
    },
  };
}

/** The evaluators service. */
export type EvaluatorService = ReturnType<typeof createEvaluatorService>;
