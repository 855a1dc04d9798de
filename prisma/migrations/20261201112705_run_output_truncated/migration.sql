-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "outputTruncated" BOOLEAN NOT NULL DEFAULT false;
