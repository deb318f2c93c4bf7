-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "merchant_ref_id" TEXT;

-- AlterTable
ALTER TABLE "seen_signatures" ADD COLUMN     "idempotency_key" TEXT;
