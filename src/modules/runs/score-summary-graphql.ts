import { builder } from "../../graphql/builder.js";
import { ScoreDataTypeEnum } from "../../graphql/enums.js";
import type { ScoreDataType } from "../../lib/closed-lists.js";
import type { ScoreSummaryBase } from "./service.js";

/** The schema types of the builder (for the field builder below). */
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The fields of a score summary, shared by ExperimentScoreSummary and BackfillScoreSummary: one declaration. */
export function scoreSummaryFields<S extends ScoreSummaryBase>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, S>) {
  return {
    evaluator: t.prismaField({ type: "Evaluator", resolve: (query, s, _a, ctx) => ctx.prisma.evaluator.findUniqueOrThrow({ ...query, where: { id: s.evaluatorId } }) }),
    evaluatorName: t.string({ resolve: (s) => s.evaluatorName }),
    name: t.string({ description: "The score name.", resolve: (s) => s.name }),
    dataType: t.field({ type: ScoreDataTypeEnum, resolve: (s) => s.dataType as ScoreDataType }),
    higherIsBetter: t.boolean({ resolve: (s) => s.higherIsBetter }),
    count: t.int({ description: "Scores written.", resolve: (s) => s.count }),
    valueCount: t.int({ description: "Scores with a value (the rest are None).", resolve: (s) => s.valueCount }),
    mean: t.float({ nullable: true, description: "Mean value (a boolean as 0/1).", resolve: (s) => s.mean }),
    passed: t.int({
      nullable: true,
      description: "Scores that pass (combine.passed at 0.5, in the score's direction); null, as passRate, for CATEGORICAL and for NUMERIC scores outside 0–1.",
      resolve: (s) => s.passed,
    }),
    passRate: t.float({ nullable: true, description: "passed / count; null, as passed, for CATEGORICAL and for NUMERIC scores outside 0–1.", resolve: (s) => s.passRate }),
  };
}
