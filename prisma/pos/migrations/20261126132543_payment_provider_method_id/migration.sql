-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "payment_provider_method_id" INTEGER;
