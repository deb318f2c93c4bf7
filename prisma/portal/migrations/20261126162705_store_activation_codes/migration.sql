-- AlterTable
ALTER TABLE "activation_codes" ADD COLUMN     "store_id" INTEGER,
ALTER COLUMN "device_id" DROP NOT NULL;
