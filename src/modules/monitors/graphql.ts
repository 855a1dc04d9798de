import { builder } from "../../graphql/builder.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import {
  ALERT_DELIVERY_STATUSES,
  ALERT_DESTINATION_KINDS,
  ALERT_EVENTS,
  MONITOR_BASELINES,
  MONITOR_CONDITIONS,
  MONITOR_METRICS,
  MONITOR_SEVERITIES,
  MONITOR_STATES,
  MONITOR_TRANSITION_CAUSES,
  type AlertDeliveryStatus,
  type AlertDestinationKind,
  type AlertEvent,
  type MonitorBaseline,
  type MonitorCondition,
  type MonitorMetric,
  type MonitorSeverity,
  type MonitorState,
  type MonitorTransitionCause,
} from "../../lib/closed-lists.js";
import { uuidOrNil } from "../../lib/uuid.js";
import { EvaluatorRef } from "../evaluators/graphql.js";
import { createDestinationInputSchema, createMonitorInputSchema, listDeliveriesInputSchema, listMonitorsInputSchema, muteMonitorInputSchema, resolveMonitorInputSchema } from "./schemas.js";
import type { AlertDelivery, AlertDestination, Monitor, TestFireResult } from "./service.js";

// Thin adapters over the monitors service: global ids are decoded here and the service gets raw ids.

const MetricEnum = builder.enumType("MonitorMetric", {
  description: "pass_rate, mean, percentile (of one score name); count (runs, or scores of scoreName); not_ok_share (runs that ran and failed); backlog_age (seconds the oldest queued live evaluation waited).",
  values: MONITOR_METRICS,
});
const ConditionEnum = builder.enumType("MonitorCondition", { description: "threshold: warning and alert levels; drop: a significant change for the worse against a baseline.", values: MONITOR_CONDITIONS });
const BaselineEnum = builder.enumType("MonitorBaseline", { description: "previous_window, week_before (the same window 7 days earlier), previous_version (the evaluator's previous template version over the same window).", values: MONITOR_BASELINES });
const StateEnum = builder.enumType("MonitorState", { description: "OK, WARNING, ALERT or NO_DATA (the window holds fewer values than minCount).", values: MONITOR_STATES });
const SeverityEnum = builder.enumType("MonitorSeverity", { description: "The state a drop fires with: WARNING or ALERT.", values: MONITOR_SEVERITIES });
const CauseEnum = builder.enumType("MonitorTransitionCause", { description: "evaluation: a window's evaluation; resolved_by_hand: resolveMonitor.", values: MONITOR_TRANSITION_CAUSES });
const DestinationKindEnum = builder.enumType("AlertDestinationKind", { description: "webhook: a JSON POST signed with HMAC-SHA256; slack: a Slack incoming webhook.", values: ALERT_DESTINATION_KINDS });
const EventEnum = builder.enumType("AlertEvent", { description: "firing: the state became WARNING, ALERT or NO_DATA; resolved: back to OK; renotify: still firing after renotifySeconds; test: testFireMonitor.", values: ALERT_EVENTS });
const DeliveryStatusEnum = builder.enumType("AlertDeliveryStatus", { description: "pending: attempts left; delivered: a 2xx answer; failed: refused for good, or out of attempts.", values: ALERT_DELIVERY_STATUSES });

const scoped = (id: string, ctx: { principal: { workspaceId: string } }) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId });

/** An alert destination of the caller's workspace (never its URL or secret: see urlHint). */
export const AlertDestinationRef = builder.prismaNode("AlertDestination", {
  id: { field: "id" },
  findUnique: scoped,
  description: "Where monitors' events go: a webhook signed with HMAC-SHA256 (docs/monitors.md § Webhooks), or a Slack incoming webhook. Its URL and signing secret are never returned after creation.",
  fields: (t) => ({
    name: t.exposeString("name"),
    kind: t.field({ type: DestinationKindEnum, resolve: (d) => d.kind as AlertDestinationKind }),
    urlHint: t.exposeString("urlHint", { description: "The URL's origin and its last characters." }),
    signed: t.boolean({ description: "True for a webhook: every request carries Oodle-Timestamp and Oodle-Signature.", resolve: (d) => d.secretSealed !== null }),
    sealed: t.boolean({ description: "True when its URL and secret are encrypted at rest (the service has ALERT_SECRETS_KEY).", resolve: (d) => d.urlSealed.startsWith("v1:") }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.prismaObject("MonitorEvaluation", {
  description: "One window of a monitor, evaluated once: its value, state and, for a drop, the baseline and the test.",
  fields: (t) => ({
    windowStart: t.expose("windowStart", { type: "DateTime" }),
    windowEnd: t.expose("windowEnd", { type: "DateTime" }),
    state: t.field({ type: StateEnum, resolve: (e) => e.state as MonitorState }),
    value: t.exposeFloat("value", { nullable: true, description: "The metric over the window (null: no data)." }),
    n: t.exposeInt("n", { description: "Values (or runs) the metric was computed over." }),
    baselineValue: t.exposeFloat("baselineValue", { nullable: true }),
    baselineN: t.exposeInt("baselineN", { nullable: true }),
    effect: t.exposeFloat("effect", { nullable: true, description: "value − baselineValue." }),
    pValue: t.exposeFloat("pValue", { nullable: true, description: "One-sided p-value of the drop test (null: not tested)." }),
    statistic: t.exposeFloat("statistic", { nullable: true, description: "z (two-proportion) or t (Welch)." }),
    reason: t.exposeString("reason"),
    detail: t.expose("detail", { type: "JSON", description: "The test, degrees of freedom, the bad side, the baseline's window or versions." }),
    evaluatedAt: t.expose("evaluatedAt", { type: "DateTime" }),
  }),
});

builder.prismaObject("MonitorTransition", {
  description: "A change of a monitor's state.",
  fields: (t) => ({
    fromState: t.field({ type: StateEnum, resolve: (x) => x.fromState as MonitorState }),
    toState: t.field({ type: StateEnum, resolve: (x) => x.toState as MonitorState }),
    cause: t.field({ type: CauseEnum, resolve: (x) => x.cause as MonitorTransitionCause }),
    reason: t.exposeString("reason"),
    windowEnd: t.expose("windowEnd", { type: "DateTime", nullable: true, description: "The window that made it (null: by hand)." }),
    at: t.expose("at", { type: "DateTime" }),
  }),
});

interface AttemptEntry {
  attempt: number;
  at: string;
  statusCode: number | null;
  body: string;
  error: string | null;
  durationMs: number;
}

const AttemptRef = builder.objectRef<AttemptEntry>("AlertDeliveryAttempt").implement({
  description: "One attempt of a delivery and the receiver's answer.",
  fields: (t) => ({
    attempt: t.exposeInt("attempt"),
    at: t.field({ type: "DateTime", resolve: (a) => new Date(a.at) }),
    statusCode: t.exposeInt("statusCode", { nullable: true, description: "The HTTP status (null: no answer)." }),
    body: t.exposeString("body", { description: "The answer's body, cut to 1 KiB." }),
    error: t.exposeString("error", { nullable: true, description: "Why there was no answer (refused address, timeout, connection error)." }),
    durationMs: t.exposeInt("durationMs"),
  }),
});

/** A delivery of the caller's workspace. */
export const AlertDeliveryRef = builder.prismaNode("AlertDelivery", {
  id: { field: "id" },
  findUnique: scoped,
  description: "One event sent to one destination, with every attempt's answer (the delivery log).",
  fields: (t) => ({
    monitor: t.relation("monitor"),
    destination: t.relation("destination"),
    event: t.field({ type: EventEnum, resolve: (d) => d.event as AlertEvent }),
    status: t.field({ type: DeliveryStatusEnum, resolve: (d) => d.status as AlertDeliveryStatus }),
    attempts: t.exposeInt("attempts"),
    nextAttemptAt: t.expose("nextAttemptAt", { type: "DateTime", nullable: true }),
    log: t.field({ type: [AttemptRef], resolve: (d) => d.log as unknown as AttemptEntry[] }),
    payload: t.expose("payload", { type: "JSON", description: "The event as sent to a webhook (Slack gets its own message built from it)." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    deliveredAt: t.expose("deliveredAt", { type: "DateTime", nullable: true }),
  }),
});

/** A monitor of the caller's workspace. */
export const MonitorRef = builder.prismaNode("Monitor", {
  id: { field: "id" },
  findUnique: scoped,
  description: "A metric of an evaluator's live runs over a window, evaluated every cadence against a threshold or as a drop against a baseline (docs/monitors.md).",
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description"),
    evaluator: t.relation("evaluator"),
    scoreName: t.exposeString("scoreName", { nullable: true }),
    metric: t.field({ type: MetricEnum, resolve: (m) => m.metric as MonitorMetric }),
    percentile: t.exposeFloat("percentile", { nullable: true }),
    windowSeconds: t.exposeInt("windowSeconds"),
    cadenceSeconds: t.exposeInt("cadenceSeconds"),
    condition: t.field({ type: ConditionEnum, resolve: (m) => m.condition as MonitorCondition }),
    warningLevel: t.exposeFloat("warningLevel", { nullable: true }),
    alertLevel: t.exposeFloat("alertLevel", { nullable: true }),
    baseline: t.field({ type: BaselineEnum, nullable: true, resolve: (m) => m.baseline as MonitorBaseline | null }),
    minEffect: t.exposeFloat("minEffect", { nullable: true }),
    maxPValue: t.exposeFloat("maxPValue"),
    dropSeverity: t.field({ type: SeverityEnum, resolve: (m) => m.dropSeverity as MonitorSeverity }),
    minSampleSize: t.exposeInt("minSampleSize"),
    minCount: t.exposeInt("minCount"),
    renotifySeconds: t.exposeInt("renotifySeconds", { nullable: true }),
    enabled: t.exposeBoolean("enabled"),
    state: t.field({ type: StateEnum, resolve: (m) => m.state as MonitorState }),
    stateSince: t.expose("stateSince", { type: "DateTime" }),
    notifiedState: t.field({ type: StateEnum, description: "The state last told to the destinations.", resolve: (m) => m.notifiedState as MonitorState }),
    lastNotifiedAt: t.expose("lastNotifiedAt", { type: "DateTime", nullable: true }),
    muted: t.exposeBoolean("muted"),
    mutedUntil: t.expose("mutedUntil", { type: "DateTime", nullable: true, description: "Muted until then (null while muted: until unmuted)." }),
    muteReason: t.exposeString("muteReason", { nullable: true }),
    lastWindowEnd: t.expose("lastWindowEnd", { type: "DateTime", nullable: true, description: "The end of the last window evaluated." }),
    destinations: t.prismaField({
      type: ["AlertDestination"],
      resolve: (query, m, _a, ctx) => ctx.prisma.alertDestination.findMany({ ...query, where: { monitors: { some: { monitorId: m.id } } }, orderBy: { name: "asc" } }),
    }),
    evaluations: t.relatedConnection("evaluations", { cursor: "id", description: "Its evaluated windows (the history), newest first.", query: { orderBy: [{ windowEnd: "desc" }, { id: "desc" }] } }),
    transitions: t.relatedConnection("transitions", { cursor: "id", description: "Its state changes, newest first.", query: { orderBy: [{ at: "desc" }, { id: "desc" }] } }),
    deliveries: t.relatedConnection("deliveries", { cursor: "id", description: "What it sent (the delivery log), newest first.", query: { orderBy: [{ createdAt: "desc" }, { id: "desc" }] } }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.queryFields((t) => ({
  monitors: t.prismaConnection({
    type: "Monitor",
    cursor: "id",
    description: "The workspace's monitors, newest first.",
    args: { state: t.arg({ type: StateEnum, ...describedBy(listMonitorsInputSchema)("state") }), evaluatorId: t.arg.globalID({ for: EvaluatorRef, ...describedBy(listMonitorsInputSchema)("evaluatorId") }), name: t.arg.string(describedBy(listMonitorsInputSchema)("name")) },
    resolve: (query, _root, args, ctx) =>
      ctx.services.monitors.listMonitors(ctx.principal, { ...(args.state ? { state: args.state } : {}), ...(args.evaluatorId ? { evaluatorId: args.evaluatorId.id } : {}), ...(args.name != null ? { name: args.name } : {}) }, query),
  }),
  monitor: t.prismaField({
    type: "Monitor",
    args: { id: t.arg.globalID({ for: MonitorRef, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.services.monitors.getMonitor(ctx.principal, { id: args.id.id });
      return ctx.prisma.monitor.findUniqueOrThrow({ ...query, where: { id: found.id } });
    },
  }),
  alertDestinations: t.prismaConnection({
    type: "AlertDestination",
    cursor: "id",
    description: "The workspace's alert destinations, newest first.",
    resolve: (query, _root, _args, ctx) => ctx.services.monitors.listDestinations(ctx.principal, query),
  }),
  alertDeliveries: t.prismaConnection({
    type: "AlertDelivery",
    cursor: "id",
    description: "The delivery log: events sent to destinations, newest first.",
    args: {
      monitorId: t.arg.globalID({ for: MonitorRef, ...describedBy(listDeliveriesInputSchema)("monitorId") }),
      status: t.arg({ type: DeliveryStatusEnum }),
    },
    resolve: (query, _root, args, ctx) => ctx.services.monitors.listDeliveries(ctx.principal, { ...(args.monitorId ? { monitorId: args.monitorId.id } : {}), ...(args.status ? { status: args.status } : {}) }, query),
  }),
}));

/** The schema types of the builder (for the field builders shared below). */
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const field = describedBy(createMonitorInputSchema);
/** The settings fields of createMonitor and updateMonitor: one declaration (`required` for create's). */
const settingsFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">, required: boolean) => ({
  name: t.string({ required, ...field("name") }),
  description: t.string(field("description")),
  evaluatorId: t.globalID({ for: EvaluatorRef, required, ...field("evaluatorId") }),
  scoreName: t.string(field("scoreName")),
  metric: t.field({ type: MetricEnum, required, ...field("metric") }),
  percentile: t.float(field("percentile")),
  windowSeconds: t.int({ required, ...field("windowSeconds") }),
  cadenceSeconds: t.int({ required, ...field("cadenceSeconds") }),
  condition: t.field({ type: ConditionEnum, required, ...field("condition") }),
  warningLevel: t.float(field("warningLevel")),
  alertLevel: t.float(field("alertLevel")),
  baseline: t.field({ type: BaselineEnum, ...field("baseline") }),
  minEffect: t.float(field("minEffect")),
  maxPValue: t.float(field("maxPValue")),
  dropSeverity: t.field({ type: SeverityEnum, ...field("dropSeverity") }),
  minSampleSize: t.int(field("minSampleSize")),
  minCount: t.int(field("minCount")),
  renotifySeconds: t.int(field("renotifySeconds")),
  enabled: t.boolean(field("enabled")),
  destinationIds: t.globalIDList({ for: AlertDestinationRef, ...field("destinationIds") }),
});

/** Fields that take null to clear (updateMonitor); on create, and for the others, a null is as if not given. */
const CLEARABLE = new Set(["scoreName", "percentile", "warningLevel", "alertLevel", "baseline", "minEffect", "renotifySeconds"]);

/** The service input of a settings input: global ids decoded; nulls dropped, or kept for clearable fields on update. */
function serviceInput(input: Record<string, unknown>, update: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined || (v === null && !(update && CLEARABLE.has(k)))) continue;
    if (k === "evaluatorId") out[k] = (v as { id: string }).id;
    else if (k === "destinationIds") out[k] = (v as { id: string }[]).map((d) => d.id);
    else if (k === "id") out[k] = (v as { id: string }).id;
    else out[k] = v;
  }
  return out;
}

const monitorPayload = {
  outputFields: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, { monitor: Monitor }>) => ({
    monitor: t.prismaField({ type: "Monitor", resolve: (query, p, _a, ctx) => ctx.prisma.monitor.findUniqueOrThrow({ ...query, where: { id: p.monitor.id } }) }),
  }),
};

builder.relayMutationField(
  "createMonitor",
  { description: "Creates a monitor and its schedule: it is evaluated every cadence from the next window end on.", inputFields: (t) => settingsFields(t, true) },
  { resolve: async (_root, { input }, ctx) => ({ monitor: await ctx.services.monitors.createMonitor(ctx.principal, serviceInput(input, false)) }) },
  monitorPayload,
);

builder.relayMutationField(
  "updateMonitor",
  { description: "Changes the given fields of a monitor (null clears scoreName, percentile, levels, baseline, minEffect, renotifySeconds; destinationIds replaces the list). Its state and history stay.", inputFields: (t) => ({ id: t.globalID({ for: MonitorRef, required: true }), ...settingsFields(t, false) }) },
  { resolve: async (_root, { input }, ctx) => ({ monitor: await ctx.services.monitors.updateMonitor(ctx.principal, serviceInput(input, true)) }) },
  monitorPayload,
);

builder.relayMutationField(
  "deleteMonitor",
  { description: "Deletes a monitor with its history and delivery log, and stops its schedule.", inputFields: (t) => ({ id: t.globalID({ for: MonitorRef, required: true }) }) },
  {
    resolve: async (_root, { input }, ctx) => {
      const monitor = await ctx.services.monitors.deleteMonitor(ctx.principal, { id: input.id.id });
      return { deletedMonitorId: monitor.id, name: monitor.name };
    },
  },
  {
    outputFields: (t) => ({
      deletedMonitorId: t.globalID({ resolve: (p) => ({ type: "Monitor", id: p.deletedMonitorId }) }),
      name: t.exposeString("name"),
    }),
  },
);

const mute = describedBy(muteMonitorInputSchema);
builder.relayMutationField(
  "muteMonitor",
  { description: "Mutes a monitor: it is still evaluated and its transitions kept, but nothing is sent until it is unmuted (or `until` passes); then what changed meanwhile is told.", inputFields: (t) => ({ id: t.globalID({ for: MonitorRef, required: true }), until: t.field({ type: "DateTime", ...mute("until") }), reason: t.string(mute("reason")) }) },
  {
    resolve: async (_root, { input }, ctx) => ({
      monitor: await ctx.services.monitors.muteMonitor(ctx.principal, { id: input.id.id, ...(input.until ? { until: input.until } : {}), ...(input.reason ? { reason: input.reason } : {}) }),
    }),
  },
  monitorPayload,
);

builder.relayMutationField(
  "unmuteMonitor",
  { description: "Unmutes a monitor.", inputFields: (t) => ({ id: t.globalID({ for: MonitorRef, required: true }) }) },
  { resolve: async (_root, { input }, ctx) => ({ monitor: await ctx.services.monitors.unmuteMonitor(ctx.principal, { id: input.id.id }) }) },
  monitorPayload,
);

builder.relayMutationField(
  "resolveMonitor",
  { description: "Resolves a firing monitor by hand: OK now, a `resolved` event sent; the next window is evaluated as usual (still bad, it fires again).", inputFields: (t) => ({ id: t.globalID({ for: MonitorRef, required: true }), reason: t.string(describedBy(resolveMonitorInputSchema)("reason")) }) },
  { resolve: async (_root, { input }, ctx) => ({ monitor: await ctx.services.monitors.resolveMonitor(ctx.principal, { id: input.id.id, ...(input.reason ? { reason: input.reason } : {}) }) }) },
  monitorPayload,
);

builder.relayMutationField(
  "testFireMonitor",
  { description: "Sends a test event (the newest due window evaluated now, nothing recorded) to every destination of the monitor, and answers after each delivery's first attempt.", inputFields: (t) => ({ id: t.globalID({ for: MonitorRef, required: true }) }) },
  { resolve: (_root, { input }, ctx) => ctx.services.monitors.testFireMonitor(ctx.principal, { id: input.id.id }) },
  {
    outputFields: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, TestFireResult>) => ({
      monitor: t.prismaField({ type: "Monitor", resolve: (query, p, _a, ctx) => ctx.prisma.monitor.findUniqueOrThrow({ ...query, where: { id: p.monitor.id } }) }),
      deliveries: t.prismaField({ type: ["AlertDelivery"], resolve: (query, p, _a, ctx) => ctx.prisma.alertDelivery.findMany({ ...query, where: { id: { in: p.deliveries.map((d: AlertDelivery) => d.id) } }, orderBy: { createdAt: "asc" } }) }),
    }),
  },
);

const destination = describedBy(createDestinationInputSchema);
builder.relayMutationField(
  "createAlertDestination",
  {
    description: "Creates an alert destination. A webhook gets a signing secret, returned here once and never again: keep it to verify Oodle-Signature (docs/monitors.md § Webhooks).",
    inputFields: (t) => ({ name: t.string({ required: true, ...destination("name") }), kind: t.field({ type: DestinationKindEnum, required: true, ...destination("kind") }), url: t.string({ required: true, ...destination("url") }) }),
  },
  { resolve: (_root, { input }, ctx) => ctx.services.monitors.createDestination(ctx.principal, input) },
  {
    outputFields: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, { destination: AlertDestination; signingSecret: string | null }>) => ({
      destination: t.prismaField({ type: "AlertDestination", resolve: (query, p, _a, ctx) => ctx.prisma.alertDestination.findUniqueOrThrow({ ...query, where: { id: p.destination.id } }) }),
      signingSecret: t.string({ nullable: true, description: "webhook: the HMAC-SHA256 signing secret, shown this once (null for slack).", resolve: (p) => p.signingSecret }),
    }),
  },
);

builder.relayMutationField(
  "deleteAlertDestination",
  { description: "Deletes a destination: monitors stop sending to it, and its delivery log goes with it.", inputFields: (t) => ({ id: t.globalID({ for: AlertDestinationRef, required: true }) }) },
  {
    resolve: async (_root, { input }, ctx) => {
      const d = await ctx.services.monitors.deleteDestination(ctx.principal, { id: input.id.id });
      return { deletedAlertDestinationId: d.id, name: d.name };
    },
  },
  {
    outputFields: (t) => ({
      deletedAlertDestinationId: t.globalID({ resolve: (p) => ({ type: "AlertDestination", id: p.deletedAlertDestinationId }) }),
      name: t.exposeString("name"),
    }),
  },
);
