import { builder } from "../../graphql/builder.js";
import type { EvaluatorKind, Isolation, SpanKind } from "../../lib/closed-lists.js";
import { EvaluatorKindEnum, IsolationEnum, SpanKindEnum } from "../../graphql/enums.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { BadUserInputError } from "../../lib/errors.js";
import { TemplateRef, withoutNulls } from "../templates/graphql.js";
import { uuidOrNil } from "../../lib/uuid.js";
import { DependencyInput, dependenciesOf } from "../dependencies/graphql-inputs.js";
import { createEvaluatorInputSchema, DEFAULT_KIND, kindTraits, updateEvaluatorInputSchema } from "./schemas.js";


/** The CPU time, wall time and memory of one item of an evaluator's runs. */
const RunLimitsRef = builder.objectRef<{ cpuTimeMs: number; wallTimeMs: number; memoryBytes: number }>("EvaluatorRunLimits").implement({
  fields: (t) => ({
    cpuTimeMs: t.exposeInt("cpuTimeMs", { description: "CPU time of one item (ms)." }),
    wallTimeMs: t.exposeInt("wallTimeMs", { description: "Wall-clock time of one item (ms)." }),
    memoryBytes: t.exposeFloat("memoryBytes", { description: "Address space of its runner (bytes)." }),
  }),
});

/** An evaluator of the caller's workspace (archived ones stay readable by id). */
export const EvaluatorRef = builder.prismaNode("Evaluator", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description:
    "A template run with its own setting values on the spans that its rule matches (kind code), or an evaluator whose scores are posted with submitScores (kind external).",
  fields: (t) => ({
    name: t.exposeString("name"),
    kind: t.field({ type: EvaluatorKindEnum, resolve: (parent) => parent.kind as EvaluatorKind }),
    template: t.relation("template", { nullable: true, description: "The template (null for an external evaluator)." }),
    pinnedVersion: t.exposeInt("pinnedVersion", { nullable: true, description: "The template version it stays on; null follows the latest." }),
    followsLatest: t.boolean({ resolve: (e) => e.pinnedVersion === null }),
    templateVersion: t.prismaField({
      type: "TemplateVersion",
      nullable: true,
      description: "The template version it runs now: its pin, else the template's latest (null for an external evaluator).",
      resolve: async (query, evaluator, _args, ctx) => {
        const version = await ctx.services.evaluators.runVersion(evaluator);
        if (!version) return null;
        return ctx.prisma.templateVersion.findUniqueOrThrow({ ...query, where: { id: version.id } });
      },
    }),
    params: t.expose("params", { type: "JSON", description: "The values this evaluator sets: setting name → value." }),
    resolvedParams: t.field({
      type: "JSON",
      description: "ctx.params of its next run: for every declared setting, its value, else the default, else null.",
      resolve: (evaluator, _args, ctx) => ctx.services.evaluators.resolvedParams(evaluator),
    }),
    enabled: t.exposeBoolean("enabled"),
    spanKind: t.field({ type: SpanKindEnum, description: "The kind of span it runs on.", resolve: (parent) => parent.spanKind as SpanKind }),
    spanNamePattern: t.exposeString("spanNamePattern", { nullable: true, description: "A glob over span names (* and ?); null matches every name." }),
    attributeEquals: t.expose("attributeEquals", { type: "JSON", description: "Span attributes that must be equal: key → value." }),
    attributeContains: t.expose("attributeContains", { type: "JSON", description: "Span attributes holding a list that must contain the value: key → value (tags)." }),
    resourceAttributeEquals: t.expose("resourceAttributeEquals", { type: "JSON", description: "Resource attributes that must be equal: key → value (deployment.environment, service.name)." }),
    rootSpansOnly: t.exposeBoolean("rootSpansOnly", { description: "It runs on root spans only (no parent span)." }),
    samplingRate: t.exposeFloat("samplingRate", { description: "The share of matching spans evaluated, 0 to 1." }),
    isolation: t.field({ type: IsolationEnum, resolve: (parent) => parent.isolation as Isolation }),
    maxInvocationsPerHour: t.exposeInt("maxInvocationsPerHour", {
      nullable: true,
      description: "At most this many runs on live spans per rolling hour; past it a run is recorded as skipped (stats.skippedInvocationCap). Null: no cap.",
    }),
    limits: t.expose("limits", { type: "JSON", description: "The sandbox limits it asks for: {cpuTimeMs?, wallTimeMs?, memoryBytes?} ({}: its template's, then the defaults)." }),
    runLimits: t.field({
      type: RunLimitsRef,
      description: "What one item of its runs gets, on every path (live, experiment, backfill): its own limits, else its template's, else the sandbox's defaults.",
      resolve: (e, _args, ctx) => ctx.services.evaluators.runLimitsOf(e),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    archivedAt: t.expose("archivedAt", { type: "DateTime", nullable: true }),
    archived: t.boolean({ resolve: (e) => e.archivedAt !== null }),
  }),
});

builder.queryFields((t) => ({
  evaluators: t.prismaConnection({
    type: "Evaluator",
    cursor: "id",
    description: "The workspace's evaluators, oldest first; archived ones only when asked.",
    args: { includeArchived: t.arg.boolean({ defaultValue: false }), templateId: t.arg.globalID({ for: TemplateRef }) },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.evaluator.findMany({
        ...query,
        where: {
          workspaceId: ctx.principal.workspaceId,
          ...(args.includeArchived ? {} : { archivedAt: null }),
          ...(args.templateId ? { templateId: uuidOrNil(args.templateId.id) } : {}),
        },
        // Then id: a cursor on a creation time that others share (one millisecond) would repeat rows on the next page.
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
  }),
  evaluator: t.prismaField({
    type: "Evaluator",
    description: "An evaluator by id (also an archived one) or by name (a live one).",
    args: { id: t.arg.globalID({ for: EvaluatorRef }), name: t.arg.string() },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.services.evaluators.lookupEvaluator(ctx.principal, { id: args.id?.id, name: args.name });
      return ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: found.id } });
    },
  }),
}));

/** The field builder of a payload that holds an evaluator row. */
type EvaluatorPayloadFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, { id: string }>;

/** The Evaluator output field of the evaluator mutations. */
const evaluatorField = {
  outputFields: (t: EvaluatorPayloadFieldBuilder) => ({
    evaluator: t.prismaField({
      type: "Evaluator",
      resolve: (query, payload, _args, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: payload.id } }),
    }),
  }),
};

/** Null-able fields whose null means something: unpin, match every name, clear the values. */
const NULL_MEANS_CLEAR = ["pinnedVersion", "spanNamePattern", "params", "limits"];

const createInput = describedBy(createEvaluatorInputSchema);
const updateInput = describedBy(updateEvaluatorInputSchema);

builder.relayMutationField(
  "createEvaluator",
  {
    inputFields: (t) => ({
      name: t.string({ required: true, ...createInput("name") }),
      kind: t.field({ type: EvaluatorKindEnum, ...createInput("kind") }),
      templateId: t.globalID({ for: TemplateRef, ...createInput("templateId") }),
      templateName: t.string(),
      pinnedVersion: t.int(createInput("pinnedVersion")),
      params: t.field({ type: "JSON", ...createInput("params") }),
      enabled: t.boolean(createInput("enabled")),
      spanKind: t.field({ type: SpanKindEnum, ...createInput("spanKind") }),
      spanNamePattern: t.string(createInput("spanNamePattern")),
      attributeEquals: t.field({ type: "JSON", ...createInput("attributeEquals") }),
      attributeContains: t.field({ type: "JSON", ...createInput("attributeContains") }),
      resourceAttributeEquals: t.field({ type: "JSON", ...createInput("resourceAttributeEquals") }),
      rootSpansOnly: t.boolean(createInput("rootSpansOnly")),
      samplingRate: t.float(createInput("samplingRate")),
      isolation: t.field({ type: IsolationEnum, ...createInput("isolation") }),
      maxInvocationsPerHour: t.int(createInput("maxInvocationsPerHour")),
      limits: t.field({ type: "JSON", ...createInput("limits") }),
      dependencies: t.field({ type: [DependencyInput], ...createInput("dependencies") }),
    }),
  },
  {
    resolve: async (_root, { input }, ctx) => {
      const { templateId, templateName, dependencies, ...fields } = input;
      const id = await ctx.services.templates.templateIdOf(ctx.principal, { templateId: templateId?.id, templateName });
      if (id === undefined && kindTraits(input.kind ?? DEFAULT_KIND).needsTemplate) throw new BadUserInputError([{ path: "templateId", message: "is required: give templateId or templateName" }]);
      return ctx.services.evaluators.createEvaluator(ctx.principal, {
        ...withoutNulls(fields, NULL_MEANS_CLEAR),
        ...(id !== undefined ? { templateId: id } : {}),
        ...(dependencies ? { dependencies: dependenciesOf(dependencies) } : {}),
      });
    },
  },
  evaluatorField,
);

builder.relayMutationField(
  "updateEvaluator",
  {
    inputFields: (t) => ({
      id: t.globalID({ required: true, for: EvaluatorRef }),
      name: t.string(),
      templateId: t.globalID({ for: TemplateRef, ...updateInput("templateId") }),
      templateName: t.string(),
      pinnedVersion: t.int(updateInput("pinnedVersion")),
      params: t.field({ type: "JSON", ...updateInput("params") }),
      mergeParams: t.boolean(updateInput("mergeParams")),
      enabled: t.boolean(),
      spanKind: t.field({ type: SpanKindEnum }),
      spanNamePattern: t.string(),
      attributeEquals: t.field({ type: "JSON" }),
      attributeContains: t.field({ type: "JSON", ...updateInput("attributeContains") }),
      resourceAttributeEquals: t.field({ type: "JSON", ...updateInput("resourceAttributeEquals") }),
      rootSpansOnly: t.boolean(updateInput("rootSpansOnly")),
      samplingRate: t.float(),
      isolation: t.field({ type: IsolationEnum }),
      maxInvocationsPerHour: t.int(updateInput("maxInvocationsPerHour")),
      limits: t.field({ type: "JSON", ...updateInput("limits") }),
      dependencies: t.field({ type: [DependencyInput], ...updateInput("dependencies") }),
    }),
  },
  {
    resolve: async (_root, { input }, ctx) => {
      const { id, templateId, templateName, dependencies, ...fields } = input;
      const template = await ctx.services.templates.templateIdOf(ctx.principal, { templateId: templateId?.id, templateName });
      const changes = {
        ...withoutNulls(fields, NULL_MEANS_CLEAR),
        ...(template !== undefined ? { templateId: template } : {}),
        ...(dependencies !== undefined ? { dependencies: dependenciesOf(dependencies) } : {}),
      };
      return ctx.services.evaluators.updateEvaluator(ctx.principal, id.id, changes);
    },
  },
  evaluatorField,
);

builder.relayMutationField(
  "deleteEvaluator",
  { inputFields: (t) => ({ id: t.globalID({ required: true, for: EvaluatorRef }) }) },
  { resolve: (_root, { input }, ctx) => ctx.services.evaluators.deleteEvaluator(ctx.principal, input.id.id) },
  evaluatorField,
);
