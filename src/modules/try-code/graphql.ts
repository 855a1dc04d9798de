import { builder } from "../../graphql/builder.js";
import type { RunOutcome } from "../../lib/closed-lists.js";
import { EvaluationTargetEnum, RunOutcomeEnum, ScoreDataTypeEnum } from "../../graphql/enums.js";
import { RunErrorRef, RunUsageRef } from "../runs/graphql.js";
import { SpanRef } from "../spans/graphql.js";
import { TemplateRef } from "../templates/graphql.js";
import { ProviderConnectionRef } from "../connections/graphql.js";
import { LimitExceededError } from "../../lib/errors.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { tryCodeInputSchema } from "./schemas.js";
import type { ScoreFallback, TryCodeScore } from "./service.js";

/** tryCode fields one GraphQL request may run (aliases included); more are refused (the same bound as the request cost of src/graphql/limits.ts). */
export const MAX_TRY_CODE_PER_REQUEST = 4;
/** tryCode fields already run by each request (keyed by its context object). */
const tryCodeFieldsOf = new WeakMap<object, number>();

/** A score returned by a draft run (not stored). */
const TryCodeScoreRef = builder.objectRef<TryCodeScore>("TryCodeScore").implement({
  description: "A score of a draft run, as the evaluator returned it.",
  fields: (t) => ({
    name: t.exposeString("name"),
    value: t.field({ type: "JSON", nullable: true, resolve: (s) => s.value }),
    dataType: t.field({ type: ScoreDataTypeEnum, resolve: (s) => s.data_type }),
    higherIsBetter: t.boolean({ resolve: (s) => s.higher_is_better }),
    comment: t.string({ nullable: true, resolve: (s) => s.comment }),
    metadata: t.field({ type: "JSON", nullable: true, resolve: (s) => s.metadata }),
    numericValue: t.exposeFloat("numericValue", { nullable: true }),
  }),
});

const ScoreFallbackRef = builder.objectRef<ScoreFallback>("ScoreFallback").implement({
  description: "A ctx.score read of a draft run that found no score in the sample, so it returned its default.",
  fields: (t) => ({
    evaluator: t.exposeString("evaluator"),
    score: t.exposeString("score", { nullable: true, description: "The score name read; null: the evaluator's first score." }),
    line: t.exposeInt("line", { description: "The line of the ctx.score call." }),
  }),
});

const tryInput = describedBy(tryCodeInputSchema);
builder.relayMutationField(
  "tryCode",
  {
    inputFields: (t) => ({
      sourceCode: t.string(tryInput("sourceCode")),
      judge: t.field({ type: "JSON", ...tryInput("judge") }),
      connectionId: t.globalID({ for: ProviderConnectionRef, ...tryInput("connectionId") }),
      connectionName: t.string({ description: "The connection by name (instead of connectionId)." }),
      paramSpecs: t.field({ type: "JSON", ...tryInput("paramSpecs") }),
      libraryPins: t.field({ type: "JSON", ...tryInput("libraryPins") }),
      starterId: t.string(tryInput("starterId")),
      templateId: t.globalID({ for: TemplateRef, ...tryInput("templateId") }),
      templateVersion: t.int(tryInput("templateVersion")),
      params: t.field({ type: "JSON", ...tryInput("params") }),
      spanId: t.globalID({ for: SpanRef, ...tryInput("spanId") }),
      span: t.field({ type: "JSON", ...tryInput("span") }),
      document: t.field({ type: "JSON", ...tryInput("document") }),
      datasetItemId: t.globalID(tryInput("datasetItemId")),
      traceId: t.string(tryInput("traceId")),
      sessionId: t.string(tryInput("sessionId")),
      target: t.field({ type: EvaluationTargetEnum, ...tryInput("target") }),
      groupSettings: t.field({ type: "JSON", ...tryInput("groupSettings") }),
      limits: t.field({ type: "JSON", ...tryInput("limits") }),
    }),
  },
  {
    description: "Runs code on one sample through the production sandbox (or a judge against its connection's model) and returns the result at once. Stores nothing.",
    resolve: async (_root, { input }, ctx) => {
      // 200 aliased tryCode fields in one request all ran: one request held a slot for half an hour.
      const fields = (tryCodeFieldsOf.get(ctx) ?? 0) + 1;
      tryCodeFieldsOf.set(ctx, fields);
      if (fields > MAX_TRY_CODE_PER_REQUEST) throw new LimitExceededError(`at most ${MAX_TRY_CODE_PER_REQUEST} tryCode fields per request`);
      const { connectionName, ...rest } = input;
      const connectionId = await ctx.services.connections.connectionIdOf(ctx.principal, { connectionId: input.connectionId?.id, connectionName });
      return ctx.services.tryCode.tryCode(ctx.principal, {
        ...rest,
        connectionId: connectionId ?? null,
        templateId: input.templateId?.id ?? null,
        spanId: input.spanId?.id ?? null,
        datasetItemId: input.datasetItemId?.id ?? null,
      });
    },
  },
  {
    outputFields: (t) => ({
      outcome: t.field({ type: RunOutcomeEnum, description: "How the run ended (never skipped).", resolve: (parent) => parent.outcome as RunOutcome }),
      scores: t.field({ type: [TryCodeScoreRef], resolve: (r) => r.scores }),
      stdout: t.exposeString("stdout"),
      stderr: t.exposeString("stderr"),
      error: t.field({ type: RunErrorRef, nullable: true, resolve: (r) => r.error }),
      durationMs: t.exposeFloat("durationMs"),
      params: t.field({ type: "JSON", description: "ctx.params as the run saw them.", resolve: (r) => r.params }),
      templateVersion: t.exposeInt("templateVersion", { nullable: true, description: "The template version run (templateId only)." }),
      libraryVersions: t.field({ type: "JSON", resolve: (r) => r.libraryVersions }),
      usage: t.field({ type: RunUsageRef, nullable: true, description: "A judge's model call (model, tokens, cost, cached); null for code.", resolve: (r) => r.usage }),
      outputTruncated: t.exposeBoolean("outputTruncated", { description: "The code printed more than the output cap: the output ends with a marker, the scores were kept." }),
      scoreFallbacks: t.field({
        type: [ScoreFallbackRef],
        description:
          "ctx.score reads (literal names) that found no score and returned their default: on a stored span the scores those evaluators have there, else document.scores.",
        resolve: (r) => r.scoreFallbacks,
      }),
    }),
  },
);
