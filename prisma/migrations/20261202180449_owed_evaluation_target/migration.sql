-- OwedEvaluation speaks of a target (issue 28): targetType and targetId replace spanId.
-- Existing rows are span targets: their spanId is copied into targetId before it is dropped.
-- A target is polymorphic, so the foreign key to Span goes: whatever deletes spans deletes
-- their owed rows in the same transaction (the retention sweep).
ALTER TABLE "OwedEvaluation" DROP CONSTRAINT "OwedEvaluation_spanId_fkey";

ALTER TABLE "OwedEvaluation" ADD COLUMN "targetType" TEXT, ADD COLUMN "targetId" UUID;

UPDATE "OwedEvaluation" SET "targetType" = 'span', "targetId" = "spanId";

ALTER TABLE "OwedEvaluation" ALTER COLUMN "targetType" SET NOT NULL, ALTER COLUMN "targetId" SET NOT NULL;

-- The closed list TARGET_TYPES of src/lib/closed-lists.ts
ALTER TABLE "OwedEvaluation" ADD CONSTRAINT "OwedEvaluation_targetType_check" CHECK ("targetType" IN ('span'));

ALTER TABLE "OwedEvaluation" DROP CONSTRAINT "OwedEvaluation_pkey",
ADD CONSTRAINT "OwedEvaluation_pkey" PRIMARY KEY ("targetType", "targetId", "evaluatorId");

ALTER TABLE "OwedEvaluation" DROP COLUMN "spanId";
