-- AlterTable
ALTER TABLE "RunHistory" ALTER COLUMN "supersededByBackfillId" DROP NOT NULL;
