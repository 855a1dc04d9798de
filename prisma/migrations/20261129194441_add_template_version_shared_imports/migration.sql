-- AlterTable
ALTER TABLE "TemplateVersion" ADD COLUMN     "sharedImports" TEXT[] DEFAULT ARRAY[]::TEXT[];
