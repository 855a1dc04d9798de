import { builder } from "../../graphql/builder.js";
import type { EvaluatorKind, Isolation, SpanKind, TargetType } from "../../lib/closed-lists.js";
import { EvaluationTargetEnum, EvaluatorKindEnum, IsolationEnum, SpanKindEnum } from "../../graphql/enums.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { BadUserInputError } from "../../lib/errors.js";
import { TemplateRef, withoutNulls } from "../templates/graphql.js";
import { ProviderConnectionRef } from "../connections/graphql.js";
import { uuidOrNil } from "../../lib/uuid.js";
import { DependencyInput, dependenciesOf } from "../dependencies/graphql-inputs.js";
import type { ObjectRef } from "@pothos/core";
import type { EvaluatorService } from "./service.js";
import {
  BLOCKED_REASON_PREFIX,
  COMPLETION_SPECS,
  createEvaluatorInputSchema,
  DEFAULT_END_MARKER,
  DEFAULT_KIND,
  DEFAULT_SESSION_KEYS,
  formatDuration,
  GROUP_CAP_SPECS,
  GROUP_TARGET_TYPES,
  kindTraits,
  MAX_BLOCKED_REASON_CHARS,
  settingsOf,
  updateEvaluatorInputSchema,
  type GroupSettings,
  type GroupTargetType,
} from "./schemas.js";

/** A duration's range and default for descriptions: `1 s to 1 h; default 30 s (trace), …`. */
function durationRange(field: "quietPeriodMs" | "maxWaitMs"): string {
  return GROUP_TARGET_TYPES.map((t) => {
    const spec = COMPLETION_SPECS[t][field];
    return `${t}: ${formatDuration(spec.floor)} to ${formatDuration(spec.ceiling)}, default ${formatDuration(spec.default)}`;
  }).join("; ");
}

/** A trace or session evaluator's group settings as they apply, with its target (for the fields that apply to one target only). */
const GroupSettingsRef = builder.objectRef<GroupSettings & { target: GroupTargetType }>("GroupSettings").implement({
  description:
    "The completion rules and caps of a trace or session evaluator as they apply (what it asked, else the defaults): it runs at once when a span carries the end marker (or, for a trace with endOnRootSpan, when its root span arrives), " +
    "else once no span arrived for quietPeriodMs, else at maxWaitMs after the first pending span (on what has arrived; Run.completion says which).",
  fields: (t) => ({
    quietPeriodMs: t.exposeInt("quietPeriodMs", { description: `No new span in the group for this long (ms) ends it. ${durationRange("quietPeriodMs")}.` }),
    maxWaitMs: t.exposeInt("maxWaitMs", { description: `At most this long (ms) after the group's first pending span it runs on what has arrived. ${durationRange("maxWaitMs")}; never shorter than quietPeriodMs.` }),
    endMarkerAttribute: t.exposeString("endMarkerAttribute", { description: `A span whose attribute of this name is true (or "true") ends the group at once; default ${DEFAULT_END_MARKER.trace} (trace), ${DEFAULT_END_MARKER.session} (session).` }),
    endOnRootSpan: t.boolean({ nullable: true, description: "Traces: the root span's arrival ends the trace (default false); null for a session.", resolve: (s) => (s.target === "trace" ? s.endOnRootSpan : null) }),
    sessionKeyAttributes: t.stringList({
      nullable: true,
      description: `Sessions: the span attributes holding the session key, the first present wins (default ${DEFAULT_SESSION_KEYS.join(", ")}); null for a trace.`,
      resolve: (s) => (s.target === "session" ? s.sessionKeyAttributes : null),
    }),
    maxSpans: t.exposeInt("maxSpans", { description: `Spans passed to the code, the earliest kept (default ${GROUP_CAP_SPECS.maxSpans.default}, at most ${GROUP_CAP_SPECS.maxSpans.ceiling}); past it the document is capped.` }),
    maxTurns: t.int({
      nullable: true,
      description: `Sessions: turns of the conversation passed, the latest kept (default ${GROUP_CAP_SPECS.maxTurns.default}, at most ${GROUP_CAP_SPECS.maxTurns.ceiling}); null for a trace.`,
      resolve: (s) => (s.target === "session" ? s.maxTurns : null),
    }),
    maxDocumentBytes: t.exposeInt("maxDocumentBytes", { description: `Bytes of the document as JSON (default ${GROUP_CAP_SPECS.maxDocumentBytes.default}, at most ${GROUP_CAP_SPECS.maxDocumentBytes.ceiling}).` }),
  }),
});

/** The group settings an evaluator input asks: every field optional (absent or null: the default). */
const GroupSettingsInput = builder.inputType("GroupSettingsInput", {
  description: "What a trace or session evaluator asks of its completion rules and caps; an absent (or null) field takes its default. Refused on a span evaluator; a field refused is named groupSettings.<field>.",
  fields: (t) => ({
    quietPeriodMs: t.int({ description: `Quiet period (ms): no new span for this long ends the group. ${durationRange("quietPeriodMs")}.` }),
    maxWaitMs: t.int({ description: `Maximum wait (ms) after the group's first pending span. ${durationRange("maxWaitMs")}; not shorter than quietPeriodMs.` }),
    endMarkerAttribute: t.string({ description: `The span attribute that, true, ends the group at once (default ${DEFAULT_END_MARKER.trace} / ${DEFAULT_END_MARKER.session}).` }),
    endOnRootSpan: t.boolean({ description: "Traces only: the root span's arrival ends the trace." }),
    sessionKeyAttribute: t.string({ description: `Sessions only: the span attribute holding the session key (default ${DEFAULT_SESSION_KEYS.join(", then ")}).` }),
    maxSpans: t.int({ description: `Spans passed to the code (1 to ${GROUP_CAP_SPECS.maxSpans.ceiling}, default ${GROUP_CAP_SPECS.maxSpans.default}).` }),
    maxTurns: t.int({ description: `Sessions only: turns passed (1 to ${GROUP_CAP_SPECS.maxTurns.ceiling}, default ${GROUP_CAP_SPECS.maxTurns.default}).` }),
    maxDocumentBytes: t.int({ description: `Bytes of the document as JSON (1 to ${GROUP_CAP_SPECS.maxDocumentBytes.ceiling}, default ${GROUP_CAP_SPECS.maxDocumentBytes.default}).` }),
  }),
});

/** A GroupSettingsInput as the service takes it: null fields dropped (they take their defaults); null stays null (every default). */
function groupSettingsOf(input: Record<string, unknown> | null | undefined): Record<string, unknown> | null | undefined {
  return input ? withoutNulls(input) : input;
}

/** The target of an evaluator row (the column is checked by the database). */
const targetOf = (e: { target: string }) => e.target as TargetType;


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
    "A template run with its own setting values on the spans that its rule matches (kind code), or an evaluator whose scores are posted with submitScores (kind external). " +
    "A code evaluator with target trace or session runs on a whole trace or session once it is done: its rule picks the groups, taking a trace or session when ANY of its spans matches (with rootSpansOnly, when its root span matches).",
  fields: (t) => ({
    name: t.exposeString("name"),
    kind: t.field({ type: EvaluatorKindEnum, resolve: (parent) => parent.kind as EvaluatorKind }),
    target: t.field({ type: EvaluationTargetEnum, description: "What it runs on: span (each matching span), trace or session (the whole group, once done). Fixed at creation.", resolve: targetOf }),
    groupSettings: t.field({
      type: GroupSettingsRef,
      nullable: true,
      description: "A trace or session evaluator's completion rules and caps as they apply (asked, else the defaults); null for a span evaluator.",
      resolve: (e) => {
        const target = targetOf(e);
        return target === "span" ? null : { ...settingsOf(target, e.groupSettings), target };
      },
    }),
    askedGroupSettings: t.expose("groupSettings", { type: "JSON", description: "The group settings it asked for, as saved ({}: every default applies; see groupSettings for the values that apply)." }),
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
    spanKind: t.field({ type: SpanKindEnum, description: "The kind of span it runs on (a trace or session evaluator: the kind of span, any of which takes the group).", resolve: (parent) => parent.spanKind as SpanKind }),
    spanNamePattern: t.exposeString("spanNamePattern", { nullable: true, description: "A glob over span names (* and ?); null matches every name." }),
    attributeEquals: t.expose("attributeEquals", { type: "JSON", description: "Span attributes that must be equal: key → value." }),
    attributeContains: t.expose("attributeContains", { type: "JSON", description: "Span attributes holding a list that must contain the value: key → value (tags)." }),
    resourceAttributeEquals: t.expose("resourceAttributeEquals", { type: "JSON", description: "Resource attributes that must be equal: key → value (deployment.environment, service.name)." }),
    rootSpansOnly: t.exposeBoolean("rootSpansOnly", { description: "It runs on root spans only (no parent span); a trace or session evaluator: the group's root span must match." }),
    samplingRate: t.exposeFloat("samplingRate", { description: "The share of matching spans evaluated, 0 to 1 (a trace or session evaluator: the share of matching groups)." }),
    isolation: t.field({ type: IsolationEnum, resolve: (parent) => parent.isolation as Isolation }),
    maxInvocationsPerHour: t.exposeInt("maxInvocationsPerHour", {
      nullable: true,
      description: "At most this many runs on live spans per rolling hour; past it a run is recorded as skipped (stats.skippedInvocationCap). Null: no cap.",
    }),
    limits: t.expose("limits", { type: "JSON", description: "The sandbox limits it asks for: {cpuTimeMs?, wallTimeMs?, memoryBytes?} ({}: its template's, then the defaults)." }),
    connection: t.relation("connection", { nullable: true, description: "A judge evaluator's connection (its provider, model default and concurrency); null for other kinds." }),
    maxCostPerHourUsd: t.exposeFloat("maxCostPerHourUsd", { nullable: true, description: "A judge evaluator's spend cap: US dollars of judge calls on live targets per rolling hour. Null: no cap." }),
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
const NULL_MEANS_CLEAR = ["pinnedVersion", "spanNamePattern", "params", "limits", "maxCostPerHourUsd"];

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
      connectionId: t.globalID({ for: ProviderConnectionRef, ...createInput("connectionId") }),
      connectionName: t.string({ description: "The connection by name (instead of connectionId)." }),
      maxCostPerHourUsd: t.float(createInput("maxCostPerHourUsd")),
      limits: t.field({ type: "JSON", ...createInput("limits") }),
      dependencies: t.field({ type: [DependencyInput], ...createInput("dependencies") }),
      target: t.field({ type: EvaluationTargetEnum, ...createInput("target") }),
      groupSettings: t.field({ type: GroupSettingsInput, ...createInput("groupSettings") }),
    }),
  },
  {
    resolve: async (_root, { input }, ctx) => {
      const { templateId, templateName, dependencies, groupSettings, connectionId, connectionName, ...fields } = input;
      const id = await ctx.services.templates.templateIdOf(ctx.principal, { templateId: templateId?.id, templateName });
      const connection = await ctx.services.connections.connectionIdOf(ctx.principal, { connectionId: connectionId?.id, connectionName });
      if (id === undefined && kindTraits(input.kind ?? DEFAULT_KIND).needsTemplate) throw new BadUserInputError([{ path: "templateId", message: "is required: give templateId or templateName" }]);
      return ctx.services.evaluators.createEvaluator(ctx.principal, {
        ...withoutNulls(fields, NULL_MEANS_CLEAR),
        ...(id !== undefined ? { templateId: id } : {}),
        ...(connection !== undefined ? { connectionId: connection } : {}),
        ...(dependencies ? { dependencies: dependenciesOf(dependencies) } : {}),
        ...(groupSettings !== undefined ? { groupSettings: groupSettingsOf(groupSettings) } : {}),
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
      connectionId: t.globalID({ for: ProviderConnectionRef, ...updateInput("connectionId") }),
      connectionName: t.string({ description: "The connection by name (instead of connectionId)." }),
      maxCostPerHourUsd: t.float(updateInput("maxCostPerHourUsd")),
      limits: t.field({ type: "JSON", ...updateInput("limits") }),
      dependencies: t.field({ type: [DependencyInput], ...updateInput("dependencies") }),
      target: t.field({ type: EvaluationTargetEnum, ...updateInput("target") }),
      groupSettings: t.field({ type: GroupSettingsInput, ...updateInput("groupSettings") }),
    }),
  },
  {
    resolve: async (_root, { input }, ctx) => {
      const { id, templateId, templateName, dependencies, groupSettings, connectionId, connectionName, ...fields } = input;
      const template = await ctx.services.templates.templateIdOf(ctx.principal, { templateId: templateId?.id, templateName });
      const connection = await ctx.services.connections.connectionIdOf(ctx.principal, { connectionId: connectionId?.id, connectionName });
      const changes = {
        ...withoutNulls(fields, NULL_MEANS_CLEAR),
        ...(template !== undefined ? { templateId: template } : {}),
        ...(connection !== undefined ? { connectionId: connection } : {}),
        ...(dependencies !== undefined ? { dependencies: dependenciesOf(dependencies) } : {}),
        ...(groupSettings !== undefined ? { groupSettings: groupSettingsOf(groupSettings) } : {}),
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

// Blocked evaluators (blocking.ts): the state on Evaluator and its stats, and unblockEvaluator.

builder.objectFields(EvaluatorRef, (t) => ({
  blockedAt: t.expose("blockedAt", {
    type: "DateTime",
    nullable: true,
    description: "Set when a terminal provider error (invalid key, unknown model, quota exhausted) blocked it: its runs are then recorded as skipped, saying so, until unblockEvaluator. Null: not blocked.",
  }),
  blockedReason: t.exposeString("blockedReason", { nullable: true, description: `Why it is blocked: the provider's error, as first recorded (at most ${MAX_BLOCKED_REASON_CHARS} characters, credentials redacted). Null when not blocked.` }),
  blocked: t.boolean({ description: "Whether it is blocked (blockedAt is set).", resolve: (e) => e.blockedAt !== null }),
}));

/** The builder's schema types, for a reference to a type declared in a module above this one. */
type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
/**
 * EvaluatorStats, declared by runs/graphql.ts (a module above this one), named rather than imported:
 * Pothos adds these fields once that type is implemented. Its parent carries the evaluator's id.
 */
const EvaluatorStatsByName = "EvaluatorStats" as unknown as ObjectRef<BuilderTypes, { evaluatorId: string }>;

/** The blocked state of the stats' evaluator, read once per stats object. */
const blockOfStats = new WeakMap<object, Promise<{ blockedAt: Date | null; blockedReason: string | null } | null>>();
function blockOf(stats: { evaluatorId: string }, ctx: { services: { evaluators: EvaluatorService } }) {
  let read = blockOfStats.get(stats);
  if (!read) {
    read = ctx.services.evaluators.blockStateOf(stats.evaluatorId);
    blockOfStats.set(stats, read);
  }
  return read;
}

builder.objectFields(EvaluatorStatsByName, (t) => ({
  blocked: t.boolean({ description: "Whether the evaluator is blocked now (Evaluator.blockedAt): its runs are skipped until unblockEvaluator.", resolve: async (s, _a, ctx) => (await blockOf(s, ctx))?.blockedAt != null }),
  blockedSince: t.field({ type: "DateTime", nullable: true, description: "When it was blocked (null when not blocked).", resolve: async (s, _a, ctx) => (await blockOf(s, ctx))?.blockedAt ?? null }),
  blockedReason: t.string({ nullable: true, description: "Why it is blocked (Evaluator.blockedReason; null when not blocked).", resolve: async (s, _a, ctx) => (await blockOf(s, ctx))?.blockedReason ?? null }),
  skippedBlocked: t.int({
    description: `Live runs (on spans, traces and sessions) recorded as skipped because the evaluator was blocked (skipReason starting "${BLOCKED_REASON_PREFIX}"), since it was created; unblocking keeps them.`,
    resolve: (s, _a, ctx) => ctx.services.evaluators.skippedBlockedCount(s.evaluatorId),
  }),
}));

builder.relayMutationField(
  "unblockEvaluator",
  {
    description: "Unblocks an evaluator that a terminal provider error blocked (blockedAt, blockedReason cleared): its next runs call the provider again. By id (also an archived one) or name (a live one); one that is not blocked is returned unchanged.",
    inputFields: (t) => ({
      id: t.globalID({ for: EvaluatorRef, description: "The evaluator's global id (or give name)." }),
      name: t.string({ description: "The live evaluator's name (or give id)." }),
    }),
  },
  {
    description: "Unblocks an evaluator that a terminal provider error blocked: clears blockedAt and blockedReason (NOT_FOUND for an evaluator of another workspace; one not blocked is returned unchanged).",
    resolve: (_root, { input }, ctx) => ctx.services.evaluators.unblockEvaluator(ctx.principal, { id: input.id?.id, name: input.name }),
  },
  evaluatorField,
);
