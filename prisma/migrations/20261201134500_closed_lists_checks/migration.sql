-- The closed lists of src/lib/closed-lists.ts as CHECK constraints: a value outside the list
-- is refused by the database whatever path writes it (ORM or raw SQL).
ALTER TABLE "Run" ADD CONSTRAINT "Run_outcome_check" CHECK ("outcome" IN ('ok', 'user_error', 'timeout', 'memory_limit', 'output_limit', 'invalid_result', 'sandbox_error', 'skipped'));
ALTER TABLE "Span" ADD CONSTRAINT "Span_kind_check" CHECK ("kind" IN ('chat', 'tool', 'agent', 'retrieval', 'other'));
ALTER TABLE "Span" ADD CONSTRAINT "Span_status_check" CHECK ("status" IN ('unset', 'ok', 'error'));
ALTER TABLE "Evaluator" ADD CONSTRAINT "Evaluator_kind_check" CHECK ("kind" IN ('code', 'external'));
ALTER TABLE "Evaluator" ADD CONSTRAINT "Evaluator_spanKind_check" CHECK ("spanKind" IN ('chat', 'tool', 'agent', 'retrieval', 'other'));
ALTER TABLE "Evaluator" ADD CONSTRAINT "Evaluator_isolation_check" CHECK ("isolation" IN ('warm', 'strict'));
ALTER TABLE "Experiment" ADD CONSTRAINT "Experiment_status_check" CHECK ("status" IN ('queued', 'running', 'completed', 'cancelled'));
ALTER TABLE "ExperimentEvaluator" ADD CONSTRAINT "ExperimentEvaluator_source_check" CHECK ("source" IN ('evaluator', 'template', 'dependency'));
ALTER TABLE "Score" ADD CONSTRAINT "Score_dataType_check" CHECK ("dataType" IN ('BOOLEAN', 'NUMERIC', 'CATEGORICAL'));
ALTER TABLE "TemplateVersion" ADD CONSTRAINT "TemplateVersion_entryPointKind_check" CHECK ("entryPointKind" IN ('evaluate', 'main', 'opik'));
