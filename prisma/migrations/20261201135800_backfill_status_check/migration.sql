-- The closed list of backfill states (src/modules/backfills/schemas.ts BACKFILL_STATUSES).
-- Prisma does not model CHECK constraints, so this migration is written by hand.
ALTER TABLE "Backfill" ADD CONSTRAINT "Backfill_status_check" CHECK (status IN ('queued', 'running', 'completed', 'cancelled', 'failed'));
