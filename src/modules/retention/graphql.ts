import { builder } from "../../graphql/builder.js";
import type { RateLimitFigures, WorkspaceLimits } from "./service.js";

const RetentionSourceEnum = builder.enumType("RetentionSource", {
  description: "Where a workspace's retention in force comes from: default (RETENTION_DEFAULT_DAYS, the workspace set nothing), workspace (its own setting), ceiling (its setting, or forever, is past RETENTION_MAX_DAYS, which holds instead).",
  values: ["default", "workspace", "ceiling"] as const,
});

const WorkspaceRetentionRef = builder.objectRef<WorkspaceLimits["retention"]>("WorkspaceRetention").implement({
  description: "How long the workspace's spans (with their live runs and scores) and run history are kept. Experiments and datasets are kept until deleted.",
  fields: (t) => ({
    days: t.int({ nullable: true, description: "Days kept, in force now; null: forever.", resolve: (r) => r.days }),
    keepForever: t.boolean({ description: "True when nothing ages out.", resolve: (r) => r.days === null }),
    source: t.field({ type: RetentionSourceEnum, resolve: (r) => r.source }),
    settingDays: t.int({ nullable: true, description: "The workspace's own setting in days; null when it set forever or nothing.", resolve: (r) => (typeof r.setting === "number" ? r.setting : null) }),
    settingKeepForever: t.boolean({ description: "True when the workspace asked to keep its data forever.", resolve: (r) => r.setting === "forever" }),
    defaultDays: t.int({ nullable: true, description: "The deployment's default (RETENTION_DEFAULT_DAYS); null: forever.", resolve: (r) => r.defaultDays }),
    maxDays: t.int({ nullable: true, description: "The deployment's ceiling (RETENTION_MAX_DAYS); null: none.", resolve: (r) => r.maxDays }),
    cutoff: t.field({ type: "DateTime", nullable: true, description: "Spans created before this instant are deleted by the next sweep (null: none ages out).", resolve: (r) => r.cutoff }),
  }),
});

const RateLimitsRef = builder.objectRef<RateLimitFigures>("WorkspaceRateLimits").implement({
  description: "Per-workspace request budgets per minute (null: no limit).",
  fields: (t) => ({
    ingestPerMinute: t.int({ nullable: true, description: "ingestSpans calls and OTLP requests.", resolve: (r) => r.ingestPerMinute }),
    tryCodePerMinute: t.int({ nullable: true, resolve: (r) => r.tryCodePerMinute }),
    mutationsPerMinute: t.int({ nullable: true, description: "Other mutations (each root field counts once).", resolve: (r) => r.mutationsPerMinute }),
    readsPerMinute: t.int({ nullable: true, description: "Read points: a query takes 1 per started 1,000 of its read cost.", resolve: (r) => r.readsPerMinute }),
  }),
});

const WorkspaceLimitsRef = builder.objectRef<WorkspaceLimits>("WorkspaceLimits").implement({
  description: "The caller's workspace limits: retention in force, request budgets and the live backlog bound.",
  fields: (t) => ({
    retention: t.field({ type: WorkspaceRetentionRef, resolve: (l) => l.retention }),
    rateLimits: t.field({ type: RateLimitsRef, resolve: (l) => l.rateLimits }),
    maxQueuedEvaluations: t.int({ nullable: true, description: "Live evaluations queued and not yet run at which ingest is refused (null: no bound).", resolve: (l) => l.maxQueuedEvaluations }),
  }),
});

builder.queryField("workspaceLimits", (t) =>
  t.field({
    type: WorkspaceLimitsRef,
    description: "The caller's workspace limits (retention, rate limits, backlog bound); sandboxCapabilities has the sandbox's.",
    resolve: (_root, _args, ctx) => ctx.services.retention.limits(ctx.principal),
  }),
);

builder.relayMutationField(
  "setWorkspaceRetention",
  {
    description: "Sets how long the workspace's spans, their runs and scores, and run history are kept: exactly one of retentionDays, keepForever: true or useDefault: true. Older data is deleted by the worker's sweep in short batches.",
    inputFields: (t) => ({
      retentionDays: t.int({ required: false, description: "Days to keep, 1 to the deployment's ceiling (workspaceLimits.retention.maxDays, else 36,500)." }),
      keepForever: t.boolean({ required: false, description: "True: nothing ages out (refused while the deployment sets a ceiling)." }),
      useDefault: t.boolean({ required: false, description: "True: back to the deployment's default." }),
    }),
  },
  { resolve: async (_root, { input }, ctx) => ({ limits: await ctx.services.retention.setRetention(ctx.principal, input) }) },
  { outputFields: (t) => ({ limits: t.field({ type: WorkspaceLimitsRef, resolve: (p) => p.limits }) }) },
);
