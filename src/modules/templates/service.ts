import { isDeepStrictEqual } from "node:util";
import type { Template, TemplateVersion } from "../../generated/prisma/client.js";
import { BadUserInputError, ConflictError, NotFoundError, type InputIssue } from "../../lib/errors.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { authorKeyOf, type Principal } from "../../lib/principal.js";
import { settingsConflictError, settingsConflicts } from "./conflicts.js";
import { checkSource, inspectSource, type SourceInspector } from "./inspect-source.js";
import { createTemplateInputSchema, parseTemplateInput, updateTemplateInputSchema } from "./schemas.js";
import type { ParamSpec } from "./settings.js";
import { validateImportsAndPins } from "../shared-libraries/resolve.js";
import { syncInferredDependencies } from "../dependencies/store.js";
import { findStarter, listStarters, starterFile, starterNotFound, type Starter } from "./starters/index.js";
import { lockTemplate, specsOf } from "./store.js";
import { asJson } from "../../lib/json-column.js";
import { idOrName, type IdOrName } from "../../lib/id-or-name.js";
import { isUuid } from "../../lib/uuid.js";
import { withUniqueName } from "../../lib/unique-violation.js";
import { validateValues } from "./values.js";
import type { EntryPointKind } from "../../lib/closed-lists.js";
import { judgeSettingIssues, parseJudge, type JudgeDefinition } from "../judges/definition.js";

/** The entry point recorded on an llm template's versions (ENTRY_POINT_KINDS). */
const JUDGE_ENTRY_POINT_KIND = "judge" satisfies EntryPointKind;
const JUDGE_ENTRY_POINT = { kind: JUDGE_ENTRY_POINT_KIND, name: "judge" } as const;

/**
 * The judge checks of an llm template save: `judge` parsed against the settings, the settings the
 * judge reads by name, and no code fields. @returns the judge (null when not given or invalid).
 */
function judgeChecks(raw: Record<string, unknown>, specs: readonly ParamSpec[], required: boolean, issues: InputIssue[]): JudgeDefinition | null {
  for (const key of ["sourceCode", "libraryPins"]) {
    if (raw[key] !== undefined && raw[key] !== null) issues.push({ path: key, message: "an llm template has no code: give its judge (messages and output)" });
  }
  issues.push(...judgeSettingIssues(specs));
  if (raw.judge === undefined || raw.judge === null) {
    if (required) issues.push({ path: "judge", message: "is required for an llm template: {messages, output}" });
    return null;
  }
  const parsed = parseJudge(raw.judge, specs.map((s) => s.name));
  issues.push(...parsed.issues);
  return parsed.judge;
}

/** What a dry-run check of a template draft found (nothing is saved or run). */
export interface TemplateValidation {
  issues: InputIssue[];
  /** The entry point found, when the code passed its checks. */
  entryPoint: { kind: string; name: string } | null;
  /** The shared libraries the code imports directly. */
  sharedImports: string[];
}

export type { ParamSpec } from "./settings.js";

/** A built-in template with its template file (a header with each setting's type and default, then the code). */
export type StarterWithFile = Starter & { file: string };

/** A template and its latest version. */
export interface TemplateWithLatest {
  template: Template;
  latest: TemplateVersion;
}

/**
 * Runs the code checks of a save when the input has code (even when other fields are invalid,
 * so every violation is reported at once); merges their issues into `issues`.
 */
async function codeChecks(input: unknown, inspector: SourceInspector, issues: InputIssue[], workspaceId?: string) {
  const source = (input as { sourceCode?: unknown } | null)?.sourceCode;
  if (typeof source !== "string") return null;
  const checked = await checkSource(source, inspector, "sourceCode", workspaceId);
  issues.push(...checked.issues);
  return checked.inspection;
}

/** Throws every issue at once; used inside transactions so a failed check writes nothing. */
function throwIfAny(issues: InputIssue[]): void {
  if (issues.length) throw new BadUserInputError(issues);
}

/**
 * Code templates and their immutable versions. Every write is one transaction; every read and
 * write is scoped to the caller's workspace (another workspace's template is NOT_FOUND).
 */
export function createTemplateService(deps: { prisma: PrismaClient; logger: Logger; inspectSource?: SourceInspector }) {
  const { prisma } = deps;
  const inspector = deps.inspectSource ?? inspectSource;

  async function latestOf(template: Template): Promise<TemplateWithLatest> {
    const latest = await prisma.templateVersion.findUniqueOrThrow({
      where: { templateId_version: { templateId: template.id, version: template.latestVersion } },
    });
    return { template, latest };
  }

  /**
   * Creates a template with version 1, after every field rule, settings rule and code check.
   * @throws BadUserInputError listing every violation (paths like `params[3].default`, `sourceCode`).
   */
  async function createTemplate(principal: Principal, input: unknown): Promise<TemplateWithLatest> {
    const { data, specs, pins, issues } = parseTemplateInput(createTemplateInputSchema, input);
    if ((input as { kind?: unknown } | null)?.kind === "llm") return createJudgeTemplate(principal, input as Record<string, unknown>, data, specs, issues);
    if ((input as { judge?: unknown } | null)?.judge != null) issues.push({ path: "judge", message: "is for llm templates only: give kind: llm" });
    if (typeof (input as { sourceCode?: unknown } | null)?.sourceCode !== "string") issues.push({ path: "sourceCode", message: "is required for a code template" });
    const inspection = await codeChecks(input, inspector, issues, principal.workspaceId);
    if (issues.length || !data || !inspection) throw new BadUserInputError(issues);
    const libraryPins = pins ?? {};
    const template = await withUniqueName("a template", data.name, () =>
      prisma.$transaction(async (tx) => {
        // Locks the pinned libraries' rows so none is deleted under a pin validated here.
        throwIfAny(await validateImportsAndPins(tx, principal.workspaceId, inspection.sharedLibraries, libraryPins, { lock: true }));
        return tx.template.create({
        data: {
          workspaceId: principal.workspaceId,
          name: data.name,
          liveName: data.name,
          description: data.description ?? "",
          limits: asJson(data.limits ?? {}),
          latestVersion: 1,
          versions: {
            create: {
              version: 1,
              sourceCode: data.sourceCode!,
              params: asJson(specs ?? []),
              entryPointKind: inspection.entryPoint.kind,
              entryPointName: inspection.entryPoint.name,
              libraryPins: asJson(libraryPins),
              sharedImports: inspection.sharedLibraries,
              scoreReads: inspection.scoreReads ?? [],
              authorApiKeyId: authorKeyOf(principal),
            },
          },
        },
        });
      }),
    );
    return latestOf(template);
  }

  /** Creates an llm template (a judge) with version 1. @throws BadUserInputError listing every violation. */
  async function createJudgeTemplate(principal: Principal, raw: Record<string, unknown>, data: ReturnType<typeof parseTemplateInput>["data"], specs: ParamSpec[] | null, issues: InputIssue[]): Promise<TemplateWithLatest> {
    if (raw.limits !== undefined && raw.limits !== null) issues.push({ path: "limits", message: "are sandbox limits: an llm template runs no code" });
    const judge = judgeChecks(raw, specs ?? [], true, issues);
    if (issues.length || !data || !judge) throw new BadUserInputError(issues);
    const template = await withUniqueName("a template", data.name, () =>
      prisma.template.create({
        data: {
          workspaceId: principal.workspaceId, name: data.name!, liveName: data.name!, description: data.description ?? "", kind: "llm", latestVersion: 1,
          versions: {
            create: {
              version: 1, sourceCode: "", params: asJson(specs ?? []), judge: asJson(judge), entryPointKind: JUDGE_ENTRY_POINT.kind, entryPointName: JUDGE_ENTRY_POINT.name,
              authorApiKeyId: authorKeyOf(principal),
            },
          },
        },
      }),
    );
    return latestOf(template);
  }

  /** A template of the workspace by id (deleted ones too) or by name (live ones), or null. */
  async function findTemplate(workspaceId: string, by: { id?: string; name?: string }): Promise<Template | null> {
    if (by.id !== undefined) {
      if (!isUuid(by.id)) return null;
      return prisma.template.findFirst({ where: { id: by.id, workspaceId } });
    }
    if (by.name !== undefined) {
      return prisma.template.findUnique({ where: { workspaceId_liveName: { workspaceId, liveName: by.name } } });
    }
    return null;
  }

  /** A version of a template of the workspace (the latest without `version`), or null. */
  async function findVersion(workspaceId: string, templateId: string, version?: number): Promise<(TemplateVersion & { template: Pick<Template, "limits"> }) | null> {
    if (!isUuid(templateId)) return null;
    const template = await prisma.template.findFirst({ where: { id: templateId, workspaceId } });
    if (!template) return null;
    return prisma.templateVersion.findUnique({
      where: { templateId_version: { templateId, version: version ?? template.latestVersion } },
      include: { template: { select: { limits: true } } },
    });
  }

  return {
    /** Creates a template with version 1 (see the function above). */
    createTemplate,

    /**
     * Every rule of a template save, without saving or running anything: the fields (name and
     * description when given), the settings, the code checks, the shared imports and pins of the
     * caller's workspace, and optionally example `values` checked as an evaluator's values would be.
     * Used by `oodle genai templates validate` and MCP `validate`. @returns the issues, by field.
     */
    async validateTemplate(principal: Principal, input: unknown, values?: unknown): Promise<TemplateValidation> {
      const { specs, pins, issues } = parseTemplateInput(updateTemplateInputSchema, input);
      const raw = (input ?? {}) as Record<string, unknown>;
      if (raw.kind === "llm" || raw.judge != null) {
        judgeChecks(raw, specs ?? [], true, issues);
        if (values !== undefined && values !== null) issues.push(...validateValues(specs ?? [], values, "values").issues);
        return { issues, entryPoint: issues.length ? null : { ...JUDGE_ENTRY_POINT }, sharedImports: [] };
      }
      const source = (input as { sourceCode?: unknown } | null)?.sourceCode;
      if (source === undefined || source === null) issues.push({ path: "sourceCode", message: "is required: the code to check" });
      const inspection = await codeChecks(input, inspector, issues, principal.workspaceId);
      if (inspection) issues.push(...(await validateImportsAndPins(prisma, principal.workspaceId, inspection.sharedLibraries, pins ?? {})));
      if (values !== undefined && values !== null) issues.push(...validateValues(specs ?? [], values, "values").issues);
      return {
        issues,
        entryPoint: inspection ? { kind: inspection.entryPoint.kind, name: inspection.entryPoint.name } : null,
        sharedImports: inspection?.sharedLibraries ?? [],
      };
    },

    /**
     * Changes a template. New code, settings or library pins make version N+1 (an identical save makes none);
     * name and description change in place. Refused with CONFLICT (409) when an evaluator that
     * follows the latest version holds a value the new settings would not accept.
     */
    async updateTemplate(principal: Principal, templateId: string, input: unknown): Promise<TemplateWithLatest> {
      const { data, specs, pins, issues } = parseTemplateInput(updateTemplateInputSchema, input);
      const kind = isUuid(templateId) ? (await prisma.template.findFirst({ where: { id: templateId, workspaceId: principal.workspaceId }, select: { kind: true } }))?.kind : undefined;
      const raw = (input ?? {}) as Record<string, unknown>;
      const isJudge = kind === "llm";
      if (!isJudge && raw.judge != null) issues.push({ path: "judge", message: "is for llm templates only (this one is a code template)" });
      if (isJudge && raw.limits != null) issues.push({ path: "limits", message: "are sandbox limits: an llm template runs no code" });
      // The judge is checked against the new settings once the latest version is read (below); code fields are refused now.
      if (isJudge) judgeChecks({ sourceCode: raw.sourceCode, libraryPins: raw.libraryPins }, specs ?? [], false, issues);
      const inspection = isJudge ? null : await codeChecks(input, inspector, issues, principal.workspaceId);
      if (issues.length || !data) throw new BadUserInputError(issues);
      const template = await withUniqueName("a template", data.name, () =>
        prisma.$transaction(async (tx) => {
          await lockTemplate(tx, principal.workspaceId, templateId, "update");
          const current = await tx.template.findUniqueOrThrow({ where: { id: templateId } });
          const latest = await tx.templateVersion.findUniqueOrThrow({
            where: { templateId_version: { templateId, version: current.latestVersion } },
          });
          const newSpecs: ParamSpec[] = specs ?? specsOf(latest);
          // An llm template's judge: the new one, else the latest's, checked against the new settings.
          const judgeIssues: InputIssue[] = [];
          const newJudge = isJudge ? judgeChecks({ judge: raw.judge ?? latest.judge }, newSpecs, true, judgeIssues) : null;
          throwIfAny(judgeIssues);
          const judgeChanged = isJudge && !isDeepStrictEqual(newJudge, latest.judge);
          const newSource = data.sourceCode ?? latest.sourceCode;
          const newPins = pins ?? ((latest.libraryPins ?? {}) as Record<string, number>);
          const newImports = inspection?.sharedLibraries ?? latest.sharedImports;
          const settingsChanged = !isDeepStrictEqual(newSpecs, specsOf(latest));
          const pinsChanged = !isDeepStrictEqual(newPins, latest.libraryPins ?? {});
          const changed = settingsChanged || pinsChanged || judgeChanged || newSource !== latest.sourceCode;
          if (changed) {
            throwIfAny(await validateImportsAndPins(tx, principal.workspaceId, newImports, newPins, { lock: true }));
          }
          if (settingsChanged) {
            const following = await tx.evaluator.findMany({
              where: { templateId, archivedAt: null, pinnedVersion: null },
              select: { id: true, name: true, params: true },
              orderBy: { name: "asc" },
            });
            const conflicts = settingsConflicts(newSpecs, following.map((e) => ({ ...e, params: (e.params ?? {}) as Record<string, unknown> })));
            if (conflicts.length) throw settingsConflictError(current.name, conflicts);
          }
          const version = changed ? current.latestVersion + 1 : current.latestVersion;
          if (changed) {
            await tx.templateVersion.create({
              data: {
                templateId,
                version,
                sourceCode: newSource,
                params: asJson(newSpecs),
                libraryPins: asJson(newPins),
                sharedImports: newImports,
                scoreReads: inspection ? (inspection.scoreReads ?? []) : latest.scoreReads,
                ...(newJudge ? { judge: asJson(newJudge) } : {}),
                entryPointKind: inspection?.entryPoint.kind ?? latest.entryPointKind,
                entryPointName: inspection?.entryPoint.name ?? latest.entryPointName,
                authorApiKeyId: authorKeyOf(principal),
              },
            });
          }
          if (changed) {
            // Evaluators that follow the latest version read what the new code reads.
            const followers = await tx.evaluator.findMany({ where: { templateId, archivedAt: null, pinnedVersion: null }, orderBy: { name: "asc" } });
            const reads = inspection ? (inspection.scoreReads ?? []) : latest.scoreReads;
            const refused: InputIssue[] = [];
            for (const follower of followers) refused.push(...(await syncInferredDependencies(tx, follower, reads)));
            throwIfAny(refused);
          }
          return tx.template.update({
            where: { id: templateId },
            data: {
              latestVersion: version,
              ...(data.name !== undefined ? { name: data.name, liveName: data.name } : {}),
              ...(data.description !== undefined ? { description: data.description } : {}),
              ...(data.limits !== undefined ? { limits: asJson(data.limits ?? {}) } : {}),
            },
          });
        }),
      );
      return latestOf(template);
    },

    /**
     * Deletes a template: refused with CONFLICT (409) naming every live evaluator that runs it.
     * The template and its versions stay readable by id (archived evaluators' history); its name is freed.
     */
    async deleteTemplate(principal: Principal, templateId: string): Promise<Template> {
      return prisma.$transaction(async (tx) => {
        await lockTemplate(tx, principal.workspaceId, templateId, "update");
        const current = await tx.template.findUniqueOrThrow({ where: { id: templateId } });
        const users = await tx.evaluator.findMany({
          where: { templateId, archivedAt: null },
          select: { id: true, name: true },
          orderBy: { name: "asc" },
        });
        if (users.length) {
          throw new ConflictError(
            `template "${current.name}" is used by ${users.length} evaluator(s): ${users.map((u) => `"${u.name}"`).join(", ")}. ` +
              "Delete them or move them to another template first.",
            users.map((u) => ({ recordType: "Evaluator" as const, evaluator: u.name, id: u.id, reason: "runs this template" })),
          );
        }
        return tx.template.update({ where: { id: templateId }, data: { deletedAt: new Date(), liveName: null } });
      });
    },

    /**
     * Creates a template from a built-in starter (its code and settings), named after the
     * starter unless `name` is given. @throws NotFoundError for an unknown starter id.
     */
    async createTemplateFromStarter(principal: Principal, starterId: string, overrides: { name?: string; description?: string } = {}) {
      const starter = findStarter(starterId);
      if (!starter) throw starterNotFound(starterId);
      return createTemplate(principal, {
        name: overrides.name ?? starter.name,
        description: overrides.description ?? starter.description,
        ...(starter.judge ? { kind: starter.kind, judge: starter.judge } : { sourceCode: starter.sourceCode }),
        params: starter.params,
      });
    },

    findTemplate,

    /** One version of a template of the workspace (the latest when `version` is omitted), or null. */
    /**
     * A template by id (also a deleted one) or by name (a live one): exactly one of them.
     * @throws BadUserInputError for both or neither; NotFoundError.
     */
    async lookupTemplate(principal: Principal, by: IdOrName): Promise<Template> {
      const key = idOrName(by)!;
      const found = await findTemplate(principal.workspaceId, key);
      if (!found) throw new NotFoundError("template", String(key.id ?? key.name));
      return found;
    },

    /**
     * The template id an input names with `templateId` or `templateName` (undefined for neither).
     * @throws BadUserInputError for both; NotFoundError for an unknown name.
     */
    async templateIdOf(principal: Principal, input: { templateId?: string | null; templateName?: string | null }): Promise<string | undefined> {
      const key = idOrName({ id: input.templateId, name: input.templateName }, { id: "templateId", name: "templateName" }, true);
      if (!key) return undefined;
      if (key.id !== undefined) return key.id;
      const template = await findTemplate(principal.workspaceId, key);
      if (!template) throw new NotFoundError("template", key.name!);
      return template.id;
    },

    /**
     * A version of a template named by `templateId` or `templateName`; the latest without `version`.
     * @throws BadUserInputError for both or neither; NotFoundError.
     */
    async lookupVersion(principal: Principal, input: { templateId?: string | null; templateName?: string | null; version?: number | null }): Promise<TemplateVersion> {
      const key = idOrName({ id: input.templateId, name: input.templateName }, { id: "templateId", name: "templateName" })!;
      const template = await findTemplate(principal.workspaceId, key);
      const version = template && (await findVersion(principal.workspaceId, template.id, input.version ?? undefined));
      if (!version) throw new NotFoundError("template version", `${key.id ?? key.name}@${input.version ?? "latest"}`);
      return version;
    },

    findVersion,

    /** The settings a template version declares (its `params` column, as saved). */
    settingsOf: (version: Pick<TemplateVersion, "params">): ParamSpec[] => specsOf(version),

    /** The built-in templates, in listing order, each with its template file. */
    listStarters: (_principal: Principal): StarterWithFile[] => listStarters().map(withFile),

    /** One built-in template by id, with its file. @throws NotFoundError listing the valid ids. */
    getStarter(_principal: Principal, id: string): StarterWithFile {
      const starter = findStarter(id);
      if (!starter) throw starterNotFound(id);
      return withFile(starter);
    },
  };
}

/** A starter with its template file. */
function withFile(starter: Starter): StarterWithFile {
  return { ...starter, file: starterFile(starter) };
}

/** The templates service. */
export type TemplateService = ReturnType<typeof createTemplateService>;
