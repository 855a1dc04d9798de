-- AlterTable
ALTER TABLE "BackfillSpan" ADD COLUMN     "groupKey" TEXT;
