-- A trace or session evaluator gate names which spans of the group must pass (any or all)
-- and a span evaluator gate leaves it NULL. Only a gate (a gateScore) has one.
ALTER TABLE "EvaluatorDependency" ADD COLUMN     "gateSpans" TEXT;
ALTER TABLE "EvaluatorDependency" ADD CONSTRAINT "EvaluatorDependency_gateSpans_check" CHECK ("gateSpans" IN ('any', 'all'));
ALTER TABLE "EvaluatorDependency" ADD CONSTRAINT "EvaluatorDependency_gateSpans_gate_check" CHECK ("gateSpans" IS NULL OR "gateScore" IS NOT NULL);
