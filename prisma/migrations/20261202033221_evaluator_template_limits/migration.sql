-- AlterTable
ALTER TABLE "Evaluator" ADD COLUMN     "limits" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "Template" ADD COLUMN     "limits" JSONB NOT NULL DEFAULT '{}';
