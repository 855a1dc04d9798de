import type { Evaluator, TemplateVersion } from "../../generated/prisma/client.js";
import { LIMIT_SPECS, runLimits } from "../../execution/index.js";
import { BadUserInputError, NotFoundError, type InputIssue } from "../../lib/errors.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { parseIssues } from "../../lib/validation.js";
import { saveDependencies, syncInferredDependencies } from "../dependencies/store.js";
import { lockTemplate, specsOf } from "../templates/store.js";
import { asJson, objectOf } from "../../lib/json-column.js";
import { idOrName, type IdOrName } from "../../lib/id-or-name.js";
import { isUuid } from "../../lib/uuid.js";
import { withUniqueName } from "../../lib/unique-violation.js";
import type { Tx } from "../../lib/prisma.js";
import { resolveParams, validateValues } from "../templates/values.js";
import type { Principal } from "../../lib/principal.js";
import { createEvaluatorInputSchema, updateEvaluatorInputSchema } from "./schemas.js";
import { kindOfTemplate, kindTraits, POSTED_KIND, DEFAULT_KIND } from "./kinds.js";
import { checkGroupSettings, type GroupSettingsInput } from "./group-settings.js";
import { GroupSettingError } from "./group-completion.js";
import { TARGET_TYPES, type TargetType } from "../../lib/closed-lists.js";
import { BLOCKED_REASON_PREFIX, blockEvaluator, clearBlock } from "./blocking.js";

/**
 * The values after an update with `mergeParams`: `patch` merged into `existing` key by key, as a
 * JSON Merge Patch (RFC 7386) at the top level: a key given with a value sets it, a key given as
 * null removes it (the setting falls back to its default), keys not given keep their values.
 * A `patch` that is not an object is returned as it is (the value rules then refuse it at `params`).
 */
export function mergeParamValues(existing: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const merged: Record<string, unknown> = { ...objectOf(existing) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** The raw input as an object, to reach fields that failed their schema. */
function rawFields(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
}

/** A stored target as a TargetType (the column is checked by the database). */
function targetOf(value: string): TargetType {
  return (TARGET_TYPES as readonly string[]).includes(value) ? (value as TargetType) : "span";
}

/**
 * The target and group settings of a save: the target is fixed at creation (a change is refused at
 * `target`), an external evaluator runs on spans only, and group settings given are checked
 * against the target (refused at `groupSettings.<field>`, the message naming the rule).
 * @returns the target, and the settings to store (undefined: keep the stored ones).
 */
function targetFields(existing: Evaluator | null, kind: string, raw: Record<string, unknown>, given: { target?: TargetType; groupSettings?: GroupSettingsInput | null }, issues: InputIssue[]) {
  const target = existing ? targetOf(existing.target) : (given.target ?? "span");
  if (existing && raw.target !== undefined && raw.target !== null && raw.target !== existing.target) {
    issues.push({ path: "target", message: `cannot change from ${existing.target} to ${String(raw.target)}: create a new evaluator for another target (its runs are of another kind of thing)` });
  }
  if (target !== "span" && !kindTraits(kind).canTargetGroups) {
    issues.push({ path: "target", message: `an ${kind} evaluator runs on spans only: external evaluators have their scores posted on spans (give target span, or a code evaluator)` });
  }
  let groupSettings: GroupSettingsInput | undefined;
  if (given.groupSettings !== undefined) {
    try {
      groupSettings = checkGroupSettings(target, given.groupSettings ?? {});
    } catch (error) {
      if (!(error instanceof GroupSettingError)) throw error;
      // The path names the field: a message that starts with it again says it once.
      const path = `groupSettings.${error.field}`;
      const named = [`${path}: `, `${error.field}: `].find((prefix) => error.message.startsWith(prefix));
      issues.push({ path, message: named ? error.message.slice(named.length) : error.message });
    }
  }
  return { target, groupSettings };
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
 * Evaluators: a template, its own setting values and the spans it runs on (kind code), or scores
 * posted through the API (kind external); either may depend on other evaluators. A code evaluator
 * may instead run on whole traces or sessions (`target`, fixed at creation, with its
 * `groupSettings`): its rule then picks the groups that have ANY matching span. Values are checked
 * against the settings of the version the evaluator runs (its pin, else the template's latest)
 * on every save. Deleting archives. Every read and write is scoped to the caller's workspace.
 */
export function createEvaluatorService(deps: { prisma: PrismaClient; logger: Logger }) {
  const { prisma } = deps;

  /** The template-side fields of a code evaluator (under a share lock on the template): pin and values checked. */
  async function codeFields(tx: Tx, principal: Principal, existing: Evaluator | null, raw: Record<string, unknown>, pinnedGiven: number | null | undefined, issues: InputIssue[], kind: string) {
    const templateId = typeof raw.templateId === "string" ? raw.templateId : (existing?.templateId ?? undefined);
    if (templateId === undefined) {
      issues.push({ path: "templateId", message: `is required for a ${kind} evaluator (give templateId or templateName)` });
      throw new BadUserInputError(issues);
    }
    await lockTemplate(tx, principal.workspaceId, templateId, "share");
    const templateKind = (await tx.template.findUniqueOrThrow({ where: { id: templateId }, select: { kind: true } })).kind;
    if (templateKind !== kindTraits(kind).templateKind) {
      issues.push({ path: "templateId", message: `a ${kind} evaluator runs a ${kindTraits(kind).templateKind} template; this one is an ${templateKind} template (a ${kindOfTemplate(templateKind)} evaluator runs it)` });
      throw new BadUserInputError(issues);
    }
    const templateChanged = existing !== null && templateId !== existing.templateId;
    const pinned = "pinnedVersion" in raw ? (pinnedGiven ?? null) : templateChanged ? null : (existing?.pinnedVersion ?? null);
    const version = await versionFor(tx, templateId, pinned, issues);
    const givenValues = !("params" in raw) ? (existing?.params ?? {}) : raw.mergeParams === true ? mergeParamValues(existing?.params, raw.params) : raw.params;
    const checked = version ? validateValues(specsOf(version), givenValues) : { values: {}, issues: [] };
    issues.push(...checked.issues);
    return { fields: { templateId, pinnedVersion: pinned, params: asJson(checked.values) }, scoreReads: version?.scoreReads ?? [] };
  }

  /**
   * The kind of a new evaluator: external when asked, else the kind that runs its template (a
   * judge for an llm template), else the given kind or the default.
   */
  async function newKindOf(workspaceId: string, raw: Record<string, unknown>, issues: InputIssue[]): Promise<string> {
    if (typeof raw.kind === "string" && kindTraits(raw.kind).canBePosted) return POSTED_KIND;
    if (typeof raw.templateId === "string" && isUuid(raw.templateId)) {
      const template = await prisma.template.findFirst({ where: { id: raw.templateId, workspaceId }, select: { kind: true } });
      if (template) {
        const kind = kindOfTemplate(template.kind);
        if (typeof raw.kind === "string" && raw.kind !== kind) issues.push({ path: "kind", message: `the template is an ${template.kind} template: its evaluators are of kind ${kind}` });
        return kind;
      }
    }
    return typeof raw.kind === "string" && kindTraits(raw.kind).needsTemplate ? raw.kind : DEFAULT_KIND;
  }

  /**
   * The connection fields of a save: a judge names a connection of the workspace (required) and
   * may set a spend cap; other kinds refuse both.
   */
  async function connectionFields(tx: Tx, workspaceId: string, kind: string, existing: Evaluator | null, raw: Record<string, unknown>, issues: InputIssue[]) {
    const given = raw.connectionId;
    if (!kindTraits(kind).usesConnection) {
      if (given !== undefined && given !== null) issues.push({ path: "connectionId", message: `a ${kind} evaluator calls no model: only judge evaluators take a connection` });
      if (raw.maxCostPerHourUsd !== undefined && raw.maxCostPerHourUsd !== null) issues.push({ path: "maxCostPerHourUsd", message: `a ${kind} evaluator has no model cost: only judge evaluators take a spend cap` });
      return {};
    }
    const connectionId = typeof given === "string" ? given : (existing?.connectionId ?? null);
    if (connectionId === null) {
      issues.push({ path: "connectionId", message: "is required for a judge evaluator (give connectionId or connectionName)" });
      return {};
    }
    const found = isUuid(connectionId) ? await tx.connection.findFirst({ where: { id: connectionId, workspaceId }, select: { id: true } }) : null;
    if (!found) issues.push({ path: "connectionId", message: "names no connection of this workspace (see connections)" });
    return {
      connectionId,
      ...(raw.maxCostPerHourUsd !== undefined ? { maxCostPerHourUsd: (raw.maxCostPerHourUsd as number | null) ?? null } : {}),
    };
  }

  /** An external evaluator has no template: refuses template fields at their paths. */
  function externalFields(raw: Record<string, unknown>, issues: InputIssue[]) {
    for (const key of ["templateId", "pinnedVersion"]) {
      if (raw[key] !== undefined && raw[key] !== null) issues.push({ path: key, message: "an external evaluator has no template: its scores are posted with submitScores" });
    }
    const params = raw.params;
    if (params !== undefined && params !== null && !(typeof params === "object" && Object.keys(params).length === 0)) {
      issues.push({ path: "params", message: "an external evaluator has no settings" });
    }
    return { fields: { templateId: null, pinnedVersion: null, params: asJson({}) }, scoreReads: [] as string[] };
  }

  /**
   * The shared save: field rules, then (under a share lock on the template, for a code evaluator)
   * pin and value rules, then the dependencies (unknown evaluators and cycles refused), then the
   * dependencies inferred from the code's literal ctx.score reads (an unknown name refused), all
   * in one transaction: a refused dependency leaves nothing saved.
   */
  async function save(principal: Principal, existing: Evaluator | null, input: unknown): Promise<Evaluator> {
    const schema = existing ? updateEvaluatorInputSchema : createEvaluatorInputSchema;
    const { data, issues: parsed } = parseIssues(schema, input);
    // A group setting's own message may start with its name (group-caps.ts): the path says it already.
    const issues = parsed.map((i) => {
      const key = i.path.startsWith("groupSettings.") ? i.path.slice("groupSettings.".length) : null;
      return key && i.message.startsWith(`${key}: `) ? { ...i, message: i.message.slice(key.length + 2) } : i;
    });
    const raw = rawFields(input);
    const kind = existing?.kind ?? (await newKindOf(principal.workspaceId, raw, issues));
    if (existing && raw.kind !== undefined && raw.kind !== existing.kind) issues.push({ path: "kind", message: "cannot change: create another evaluator" });
    const name = data?.name ?? (typeof raw.name === "string" ? raw.name : undefined);
    return withUniqueName("an evaluator", name, () =>
      prisma.$transaction(async (tx) => {
        const code = !kindTraits(kind).needsTemplate ? externalFields(raw, issues) : await codeFields(tx, principal, existing, raw, data?.pinnedVersion, issues, kind);
        const template = code.fields;
        const connection = await connectionFields(tx, principal.workspaceId, kind, existing, raw, issues);
        const group = targetFields(existing, kind, raw, data ?? {}, issues);
        if (issues.length || !data) throw new BadUserInputError(issues);
        const fields = {
          ...(data.name !== undefined ? { name: data.name, liveName: data.name } : {}),
          ...template,
          ...connection,
          ...(data.enabled !== undefined ? { enabled: data.enabled } : {}),
          ...(data.spanKind !== undefined ? { spanKind: data.spanKind } : {}),
          ...(data.spanNamePattern !== undefined ? { spanNamePattern: data.spanNamePattern } : {}),
          ...(data.attributeEquals !== undefined ? { attributeEquals: asJson(data.attributeEquals) } : {}),
          ...(data.attributeContains !== undefined ? { attributeContains: asJson(data.attributeContains) } : {}),
          ...(data.resourceAttributeEquals !== undefined ? { resourceAttributeEquals: asJson(data.resourceAttributeEquals) } : {}),
          ...(data.rootSpansOnly !== undefined ? { rootSpansOnly: data.rootSpansOnly } : {}),
          ...(data.samplingRate !== undefined ? { samplingRate: data.samplingRate } : {}),
          ...(data.isolation !== undefined ? { isolation: data.isolation } : {}),
          ...(data.maxInvocationsPerHour !== undefined ? { maxInvocationsPerHour: data.maxInvocationsPerHour } : {}),
          ...(data.limits !== undefined ? { limits: asJson(data.limits ?? {}) } : {}),
          ...(group.groupSettings !== undefined ? { groupSettings: asJson(group.groupSettings) } : {}),
        };
        const saved = existing
          ? await tx.evaluator.update({ where: { id: existing.id }, data: fields })
          : await tx.evaluator.create({ data: { ...fields, kind, target: group.target, workspaceId: principal.workspaceId, name: data.name!, liveName: data.name! } });
        if (data.dependencies !== undefined) {
          const refused = await saveDependencies(tx, saved, data.dependencies);
          if (refused.length) throw new BadUserInputError(refused);
        }
        // Literal ctx.score("Name") reads of the code it runs are dependencies too (marked inferred).
        if (kindTraits(kind).computed) {
          const refused = await syncInferredDependencies(tx, saved, code.scoreReads, "templateId");
          if (refused.length) throw new BadUserInputError(refused);
        }
        return saved;
      }),
    );
  }

  /** A live evaluator of the workspace, for a write. @throws NotFoundError. */
  async function liveEvaluator(workspaceId: string, id: string): Promise<Evaluator> {
    const evaluator = isUuid(id) ? await prisma.evaluator.findFirst({ where: { id, workspaceId, archivedAt: null } }) : null;
    if (!evaluator) throw new NotFoundError("evaluator", id);
    return evaluator;
  }

  /** The template version the evaluator runs now: its pin, else the template's latest; null for an external evaluator. */
  async function runVersion(evaluator: Pick<Evaluator, "templateId" | "pinnedVersion">): Promise<TemplateVersion | null> {
    if (evaluator.templateId === null) return null;
    const template = await prisma.template.findUniqueOrThrow({ where: { id: evaluator.templateId } });
    return prisma.templateVersion.findUniqueOrThrow({
      where: { templateId_version: { templateId: evaluator.templateId, version: evaluator.pinnedVersion ?? template.latestVersion } },
    });
  }

  /** An evaluator of the workspace by id (archived ones too) or by name (live ones), or null. */
  async function findEvaluator(workspaceId: string, by: { id?: string; name?: string }): Promise<Evaluator | null> {
    if (by.id !== undefined) return isUuid(by.id) ? prisma.evaluator.findFirst({ where: { id: by.id, workspaceId } }) : null;
    if (by.name !== undefined) return prisma.evaluator.findUnique({ where: { workspaceId_liveName: { workspaceId, liveName: by.name } } });
    return null;
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
     * Changes a live evaluator: only the given fields; `params` replaces its values, or with
     * `mergeParams: true` is merged into them ({@link mergeParamValues}). Its values (given or kept) are checked
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
    findEvaluator,

    /**
     * The CPU time, wall time and memory of one item of its runs: its own limits, else its
     * template's, else the sandbox's defaults (src/execution/limits.ts), key by key.
     */
    async runLimitsOf(evaluator: Pick<Evaluator, "limits" | "templateId">): Promise<{ cpuTimeMs: number; wallTimeMs: number; memoryBytes: number }> {
      const template = evaluator.templateId ? await prisma.template.findUnique({ where: { id: evaluator.templateId }, select: { limits: true } }) : null;
      const asked = runLimits(evaluator.limits, template?.limits);
      return { cpuTimeMs: asked.cpuTimeMs ?? LIMIT_SPECS.cpuTimeMs.default, wallTimeMs: asked.wallTimeMs ?? LIMIT_SPECS.wallTimeMs.default, memoryBytes: asked.memoryBytes ?? LIMIT_SPECS.memoryBytes.default };
    },

    /**
     * An evaluator by id (also an archived one) or by name (a live one): exactly one of them.
     * @throws BadUserInputError for both or neither; NotFoundError.
     */
    async lookupEvaluator(principal: Principal, by: IdOrName): Promise<Evaluator> {
      const key = idOrName(by)!;
      const found = await findEvaluator(principal.workspaceId, key);
      if (!found) throw new NotFoundError("evaluator", String(key.id ?? key.name));
      return found;
    },

    /** The template version the evaluator runs now: its pin, else the template's latest. */
    runVersion,

    /** ctx.params of the evaluator's next run: value → default → null for every declared setting ({} for an external one). */
    async resolvedParams(evaluator: Pick<Evaluator, "templateId" | "pinnedVersion" | "params">): Promise<Record<string, unknown>> {
      const version = await runVersion(evaluator);
      if (!version) return {};
      return resolveParams(specsOf(version), objectOf(evaluator.params));
    },

    /**
     * Blocks an evaluator after a terminal provider error (blocking.ts {@link blockEvaluator}): sets
     * blockedAt and blockedReason unless it is blocked already (the first reason stays), logging
     * at warn. For the executor and drivers (no principal: the evaluator's id is trusted).
     * @param evaluatorId - the raw id. @param reason - capped at 1,000 characters, credentials redacted.
     * @returns true when it blocked it now.
     */
    blockEvaluator: (evaluatorId: string, reason: string): Promise<boolean> => blockEvaluator(prisma, evaluatorId, reason, deps.logger),

    /** An evaluator's block (raw id; null for no such evaluator): blockedAt and blockedReason, both null when not blocked. */
    blockStateOf: (evaluatorId: string): Promise<{ blockedAt: Date | null; blockedReason: string | null } | null> =>
      isUuid(evaluatorId) ? prisma.evaluator.findUnique({ where: { id: evaluatorId }, select: { blockedAt: true, blockedReason: true } }) : Promise.resolve(null),

    /** Live runs (on spans, traces or sessions) of an evaluator recorded as skipped because it was blocked ({@link BLOCKED_REASON_PREFIX}). */
    skippedBlockedCount: (evaluatorId: string): Promise<number> =>
      prisma.run.count({
        where: { evaluatorId, outcome: "skipped", skipReason: { startsWith: BLOCKED_REASON_PREFIX }, OR: [{ spanId: { not: null } }, { traceId: { not: null } }, { sessionId: { not: null } }] },
      }),

    /**
     * Unblocks an evaluator of the caller's workspace, by id (also an archived one) or by name (a
     * live one): clears blockedAt and blockedReason, so its next runs call the provider again.
     * An evaluator that is not blocked is returned unchanged. `updatedAt` is left as it is.
     * @throws BadUserInputError for both or neither of id and name; NotFoundError (also for another workspace's evaluator).
     */
    async unblockEvaluator(principal: Principal, by: IdOrName): Promise<Evaluator> {
      const key = idOrName(by)!;
      const found = await findEvaluator(principal.workspaceId, key);
      if (!found) throw new NotFoundError("evaluator", String(key.id ?? key.name));
      if (found.blockedAt === null) return found;
      if (await clearBlock(prisma, found.id)) deps.logger.info({ evaluatorId: found.id, workspaceId: principal.workspaceId, blockedAt: found.blockedAt.toISOString() }, "evaluator unblocked");
      return prisma.evaluator.findUniqueOrThrow({ where: { id: found.id } });
    },
  };
}

/** The evaluators service. */
export type EvaluatorService = ReturnType<typeof createEvaluatorService>;
