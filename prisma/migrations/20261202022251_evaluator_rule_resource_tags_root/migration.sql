-- AlterTable
ALTER TABLE "Evaluator" ADD COLUMN     "attributeContains" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "resourceAttributeEquals" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "rootSpansOnly" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "EvaluatorMatchStats" ADD COLUMN     "skippedResource" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "skippedRoot" INTEGER NOT NULL DEFAULT 0;
