-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "is_active" BOOLEAN NOT NULL DEFAULT true;
