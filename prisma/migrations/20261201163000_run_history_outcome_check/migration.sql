-- RunHistory keeps runs that were replaced, with the same columns as Run: its outcome is the same
-- closed list (src/lib/closed-lists.ts RUN_OUTCOMES) with the same CHECK as Run_outcome_check.
-- Prisma does not model CHECK constraints, so this migration is written by hand.
ALTER TABLE "RunHistory" ADD CONSTRAINT "RunHistory_outcome_check" CHECK ("outcome" IN ('ok', 'user_error', 'timeout', 'memory_limit', 'output_limit', 'invalid_result', 'sandbox_error', 'skipped'));
