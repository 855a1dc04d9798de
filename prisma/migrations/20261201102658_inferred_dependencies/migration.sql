-- AlterTable
ALTER TABLE "EvaluatorDependency" ADD COLUMN     "inferred" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "missingDependencies" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "TemplateVersion" ADD COLUMN     "scoreReads" TEXT[] DEFAULT ARRAY[]::TEXT[];
