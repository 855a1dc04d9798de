import { builder } from "../../graphql/builder.js";
import { ScoreDataTypeEnum } from "../../graphql/enums.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { evaluatorRefOf } from "../dependencies/graphql-inputs.js";
import { RunRef } from "../runs/graphql.js";
import { SpanRef } from "../spans/graphql.js";
import { postedScoreSchema } from "./schemas.js";

const postedScore = describedBy(postedScoreSchema);
const PostedScoreInput = builder.inputType("PostedScoreInput", {
  description: "A score: data type inferred from the value when omitted (true/false → BOOLEAN, number → NUMERIC, string → CATEGORICAL).",
  fields: (t) => ({
    name: t.string({ required: true }),
    value: t.field({ type: "JSON", ...postedScore("value") }),
    dataType: t.field({ type: ScoreDataTypeEnum }),
    higherIsBetter: t.boolean(postedScore("higherIsBetter")),
    comment: t.string(),
    metadata: t.field({ type: "JSON" }),
  }),
});

builder.relayMutationField(
  "submitScores",
  {
    inputFields: (t) => ({
      spanId: t.globalID({ for: SpanRef, description: "The live span scored; or give experimentId and datasetItemId." }),
      experimentId: t.globalID({ description: "The experiment whose dataset item is scored (with datasetItemId), instead of spanId." }),
      datasetItemId: t.globalID({ description: "The dataset item of the experiment that is scored." }),
      evaluator: t.string({ required: true, description: "The external evaluator: its name, or its id (global or UUID)." }),
      scores: t.field({ type: [PostedScoreInput], required: true }),
    }),
  },
  {
    resolve: (_root, { input }, ctx) =>
      ctx.services.dependencies.postScores(ctx.principal, {
        spanId: input.spanId?.id,
        experimentId: input.experimentId?.id,
        datasetItemId: input.datasetItemId?.id,
        evaluator: evaluatorRefOf(input.evaluator),
        scores: input.scores.map((s) => ({ ...s, value: s.value === undefined ? null : s.value })),
      }),
  },
  {
    description:
      "Posts the scores of an external evaluator (an LLM judge running elsewhere, a person) on a span, or on a dataset item of an experiment " +
      "(experimentId + datasetItemId: the experiment's dependents wait for them). Posting again replaces the earlier scores; " +
      "evaluators that depend on it and already ran on the span run again, and those waiting for these scores are released.",
    outputFields: (t) => ({
      run: t.field({ type: RunRef, resolve: (r) => r.run }),
      replaced: t.exposeBoolean("replaced", { description: "True when earlier scores were replaced." }),
      rerun: t.prismaField({
        type: ["Evaluator"],
        description: "Evaluators queued to run again on the span because they had read the earlier scores.",
        resolve: (query, r, _a, ctx) => ctx.prisma.evaluator.findMany({ ...query, where: { id: { in: r.rerun } } }),
      }),
    }),
  },
);

