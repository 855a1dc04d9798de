-- AlterTable
ALTER TABLE "Evaluator" ADD COLUMN     "isolation" TEXT NOT NULL DEFAULT 'warm';
