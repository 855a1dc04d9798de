-- AlterTable
ALTER TABLE "Experiment" ADD COLUMN     "dependencyWaitSeconds" INTEGER NOT NULL DEFAULT 604800;
