-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "permissions" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "store_ids" INTEGER[] DEFAULT ARRAY[]::INTEGER[];
