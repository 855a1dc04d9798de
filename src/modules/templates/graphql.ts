import { resolveArrayConnection } from "@pothos/plugin-relay";
import { builder } from "../../graphql/builder.js";
import type { EntryPointKind, TemplateKind } from "../../lib/closed-lists.js";
import { TemplateKindEnum, EntryPointKindEnum } from "../../graphql/enums.js";
import { PAGE_SIZE } from "../../graphql/connections.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { createTemplateInputSchema, updateTemplateInputSchema } from "./schemas.js";
import type { ParamSpec, StarterWithFile, TemplateValidation } from "./service.js";
import { uuidOrNil } from "../../lib/uuid.js";


/**
 * The input without its null fields: in an update, null means "unchanged" except for the fields
 * in `keep`, where it means "clear" (settings, values, pin, name pattern).
 */
export function withoutNulls<T extends Record<string, unknown>>(input: T, keep: readonly string[] = []): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([k, v]) => v !== null || keep.includes(k))) as Partial<T>;
}

/** One setting of a template version (docs/settings.md § Declaring a setting). */
export const TemplateParamRef = builder.objectRef<ParamSpec>("TemplateParam").implement({
  description: "A setting of a template: a named, typed value that the code reads from ctx.params.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The key in ctx.params." }),
    type: t.exposeString("type", { description: "string, text, number, integer, boolean, string_list, enum or json." }),
    label: t.string({ nullable: true, resolve: (p) => p.label ?? null }),
    description: t.string({ nullable: true, resolve: (p) => p.description ?? null }),
    default: t.field({ type: "JSON", nullable: true, description: "The value when an evaluator sets none (null: no default).", resolve: (p) => p.default ?? null }),
    hasDefault: t.boolean({ resolve: (p) => p.default !== undefined && p.default !== null }),
    required: t.exposeBoolean("required", { description: "Each evaluator must set a value, unless there is a default." }),
    options: t.stringList({ nullable: true, description: "The values of an enum setting.", resolve: (p) => p.options ?? null }),
  }),
});

const EntryPointRef = builder.objectRef<{ kind: string; name: string }>("EntryPoint").implement({
  description: "The entry point found in the code (without running it).",
  fields: (t) => ({
    kind: t.field({ type: EntryPointKindEnum, resolve: (parent) => parent.kind as EntryPointKind }),
    name: t.exposeString("name", { description: "The function or class name." }),
  }),
});

/** A template of the caller's workspace (deleted ones stay readable by id). */
export const TemplateRef = builder.prismaNode("Template", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "A template: Python code (kind code) or a judge's chat messages (kind llm), with typed settings, saved as immutable versions.",
  fields: (t) => ({
    name: t.exposeString("name"),
    kind: t.field({ type: TemplateKindEnum, resolve: (template) => template.kind as TemplateKind }),
    description: t.exposeString("description"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    deletedAt: t.expose("deletedAt", { type: "DateTime", nullable: true }),
    latestVersionNumber: t.exposeInt("latestVersion"),
    limits: t.expose("limits", { type: "JSON", description: "The sandbox limits its evaluators get unless they set their own: {cpuTimeMs?, wallTimeMs?, memoryBytes?} ({}: the defaults)." }),
    latestVersion: t.prismaField({
      type: "TemplateVersion",
      resolve: (query, template, _args, ctx) =>
        ctx.prisma.templateVersion.findUniqueOrThrow({ ...query, where: { templateId_version: { templateId: template.id, version: template.latestVersion } } }),
    }),
    version: t.prismaField({
      type: "TemplateVersion",
      nullable: true,
      args: { version: t.arg.int({ required: true }) },
      resolve: (query, template, args, ctx) =>
        ctx.prisma.templateVersion.findUnique({ ...query, where: { templateId_version: { templateId: template.id, version: args.version } } }),
    }),
    versions: t.relatedConnection("versions", { cursor: "id", description: "The history, newest first.", query: { orderBy: { version: "desc" } } }),
    evaluators: t.relatedConnection("evaluators", {
      cursor: "id",
      description: "The live evaluators that run this template.",
      query: { where: { archivedAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
    }),
  }),
});

/** One immutable version of a template. */
export const TemplateVersionRef = builder.prismaNode("TemplateVersion", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), template: { workspaceId: ctx.principal.workspaceId } }),
  description: "One save of a template's code and settings; never changes.",
  fields: (t) => ({
    version: t.exposeInt("version"),
    sourceCode: t.exposeString("sourceCode", { description: "The code of a code template (empty for an llm template)." }),
    judge: t.expose("judge", { type: "JSON", nullable: true, description: "An llm template's judge: {messages, output, maxOutputTokens, cacheTtlSeconds}; null for a code template." }),
    params: t.field({ type: [TemplateParamRef], description: "The settings.", resolve: (v, _args, ctx) => ctx.services.templates.settingsOf(v) }),
    libraryPins: t.expose("libraryPins", { type: "JSON", description: "Shared library name → pinned version." }),
    sharedImports: t.exposeStringList("sharedImports", { description: "The shared libraries the code imports directly." }),
    scoreReads: t.exposeStringList("scoreReads", {
      description: 'Evaluator names the code reads with a literal ctx.score("Name", ...): the evaluators that run this version depend on them (inferred). A computed name is not found: declare it.',
    }),
    resolvedLibraries: t.field({
      type: "JSON",
      description: "What each shared import resolves to now (transitively): library name → version.",
      resolve: async (v, _args, ctx) =>
        (await ctx.services.sharedLibraries.resolveLibraries(ctx.principal.workspaceId, v.sharedImports, (v.libraryPins ?? {}) as Record<string, number>)).versions,
    }),
    entryPoint: t.field({ type: EntryPointRef, resolve: (v) => ({ kind: v.entryPointKind, name: v.entryPointName }) }),
    author: t.relation("authorApiKey", { nullable: true, description: "The API key that saved it." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    template: t.relation("template"),
  }),
});

/** A built-in template. */
export const StarterRef = builder.objectRef<StarterWithFile>("Starter").implement({
  description: "A built-in template: code whose settings are the keyword arguments of its oodle_eval.v1 check, or (kind llm) an LLM judge.",
  fields: (t) => ({
    id: t.exposeString("id"),
    name: t.exposeString("name"),
    description: t.exposeString("description"),
    kind: t.field({ type: TemplateKindEnum, resolve: (s) => s.kind }),
    judge: t.field({ type: "JSON", nullable: true, description: "An llm starter's judge ({messages, output}); null for code.", resolve: (s) => s.judge ?? null }),
    settingNames: t.stringList({ resolve: (s) => s.params.map((p) => p.name) }),
    params: t.field({ type: [TemplateParamRef], resolve: (s) => s.params }),
    sourceCode: t.exposeString("sourceCode", { description: "The code, as a new template gets it (empty for an llm starter)." }),
    file: t.exposeString("file", { description: "The template file: a header with each setting's type and default, then the code (an llm starter: its judge as JSON)." }),
  }),
});

const ValidationIssueRef = builder.objectRef<{ path: string; message: string }>("ValidationIssue").implement({
  description: "One problem of an input: the field (`params[3].default`, `sourceCode`) and the rule it breaks.",
  fields: (t) => ({ path: t.exposeString("path"), message: t.exposeString("message") }),
});

const TemplateValidationRef = builder.objectRef<TemplateValidation>("TemplateValidation").implement({
  description: "What the save rules of a template found in a draft, without saving or running it.",
  fields: (t) => ({
    valid: t.boolean({ description: "No issues: a save would pass these checks.", resolve: (v) => v.issues.length === 0 }),
    issues: t.field({ type: [ValidationIssueRef], resolve: (v) => v.issues }),
    entryPoint: t.field({ type: EntryPointRef, nullable: true, description: "The entry point, when the code passed its checks.", resolve: (v) => v.entryPoint }),
    sharedImports: t.stringList({ description: "The shared libraries the code imports directly.", resolve: (v) => v.sharedImports }),
  }),
});

builder.queryFields((t) => ({
  validateTemplate: t.field({
    type: TemplateValidationRef,
    description:
      "Checks a template draft by every save rule (fields, settings, code, shared imports and pins, or an llm template's judge; example values when given) without saving or running it.",
    args: {
      kind: t.arg({ type: TemplateKindEnum, description: "code (default) or llm: an llm draft gives `judge` instead of sourceCode." }),
      sourceCode: t.arg.string({ description: "A code draft's Python (required for kind code)." }),
      judge: t.arg({ type: "JSON", description: "An llm draft's judge: {messages, output, maxOutputTokens?, cacheTtlSeconds?} (docs/judges.md)." }),
      params: t.arg({ type: "JSON", description: "The settings list, as createTemplate takes it." }),
      libraryPins: t.arg({ type: "JSON", description: "Shared-library pins: {library name: version}." }),
      name: t.arg.string({ description: "Checked when given." }),
      description: t.arg.string(),
      values: t.arg({ type: "JSON", description: "Example setting values, checked as an evaluator's values (issues at values.<name>)." }),
    },
    resolve: (_root, args, ctx) => {
      const { values, ...draft } = args;
      return ctx.services.templates.validateTemplate(ctx.principal, withoutNulls(draft), values ?? undefined);
    },
  }),
  templates: t.prismaConnection({
    type: "Template",
    cursor: "id",
    description: "The workspace's live templates, oldest first.",
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.template.findMany({ ...query, where: { workspaceId: ctx.principal.workspaceId, deletedAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
  }),
  template: t.prismaField({
    type: "Template",
    description: "A template by id (also a deleted one) or by name (a live one).",
    args: { id: t.arg.globalID({ for: TemplateRef }), name: t.arg.string() },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.services.templates.lookupTemplate(ctx.principal, { id: args.id?.id, name: args.name });
      return ctx.prisma.template.findUniqueOrThrow({ ...query, where: { id: found.id } });
    },
  }),
  templateVersion: t.prismaField({
    type: "TemplateVersion",
    description: "One version of a template, by template id or name; the latest when version is omitted.",
    args: { templateId: t.arg.globalID({ for: TemplateRef }), templateName: t.arg.string(), version: t.arg.int() },
    resolve: async (query, _root, args, ctx) => {
      const version = await ctx.services.templates.lookupVersion(ctx.principal, { templateId: args.templateId?.id, templateName: args.templateName, version: args.version });
      return ctx.prisma.templateVersion.findUniqueOrThrow({ ...query, where: { id: version.id } });
    },
  }),
  starters: t.connection({
    type: StarterRef,
    description: "The built-in templates: id, name and setting names.",
    resolve: (_root, args, ctx) => resolveArrayConnection({ args, defaultSize: PAGE_SIZE.default, maxSize: PAGE_SIZE.max }, ctx.services.templates.listStarters(ctx.principal)),
  }),
  starter: t.field({
    type: StarterRef,
    description: "One built-in template with its file: each setting's type and default, then the code.",
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.templates.getStarter(ctx.principal, args.id),
  }),
}));

/** The Template an output field returns after a mutation (read with the client's selection). */
const templateField = {
  outputFields: (t: TemplatePayloadFieldBuilder) => ({
    template: t.prismaField({
      type: "Template",
      resolve: (query, payload, _args, ctx) => ctx.prisma.template.findUniqueOrThrow({ ...query, where: { id: payload.id } }),
    }),
  }),
};

/** The field builder of a payload that holds a template row. */
type TemplatePayloadFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, { id: string }>;

const createInput = describedBy(createTemplateInputSchema);
const updateInput = describedBy(updateTemplateInputSchema);

builder.relayMutationField(
  "createTemplate",
  {
    inputFields: (t) => ({
      name: t.string({ required: true, ...createInput("name") }),
      description: t.string(createInput("description")),
      kind: t.field({ type: TemplateKindEnum, ...createInput("kind") }),
      sourceCode: t.string(createInput("sourceCode")),
      judge: t.field({ type: "JSON", ...createInput("judge") }),
      params: t.field({ type: "JSON", ...createInput("params") }),
      libraryPins: t.field({ type: "JSON", ...createInput("libraryPins") }),
      limits: t.field({ type: "JSON", ...createInput("limits") }),
    }),
  },
  { resolve: async (_root, { input }, ctx) => (await ctx.services.templates.createTemplate(ctx.principal, withoutNulls(input))).template },
  templateField,
);

builder.relayMutationField(
  "updateTemplate",
  {
    inputFields: (t) => ({
      id: t.globalID({ required: true, for: TemplateRef }),
      name: t.string(updateInput("name")),
      description: t.string(updateInput("description")),
      sourceCode: t.string(updateInput("sourceCode")),
      judge: t.field({ type: "JSON", ...updateInput("judge") }),
      params: t.field({ type: "JSON", ...updateInput("params") }),
      libraryPins: t.field({ type: "JSON", ...updateInput("libraryPins") }),
      limits: t.field({ type: "JSON", ...updateInput("limits") }),
    }),
  },
  {
    resolve: async (_root, { input }, ctx) => {
      const { id, ...fields } = input;
      return (await ctx.services.templates.updateTemplate(ctx.principal, id.id, withoutNulls(fields, ["params", "limits"]))).template;
    },
  },
  templateField,
);

builder.relayMutationField(
  "deleteTemplate",
  { inputFields: (t) => ({ id: t.globalID({ required: true, for: TemplateRef }) }) },
  { resolve: (_root, { input }, ctx) => ctx.services.templates.deleteTemplate(ctx.principal, input.id.id) },
  templateField,
);

builder.relayMutationField(
  "createTemplateFromStarter",
  {
    inputFields: (t) => ({
      starterId: t.string({ required: true }),
      name: t.string({ description: "Defaults to the starter's name." }),
      description: t.string(),
    }),
  },
  {
    resolve: async (_root, { input }, ctx) => {
      const overrides = { name: input.name ?? undefined, description: input.description ?? undefined };
      return (await ctx.services.templates.createTemplateFromStarter(ctx.principal, input.starterId, overrides)).template;
    },
  },
  templateField,
);
