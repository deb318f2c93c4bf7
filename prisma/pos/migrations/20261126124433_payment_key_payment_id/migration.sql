-- AlterTable
ALTER TABLE "payment_idempotency_keys" ADD COLUMN     "payment_id" UUID;

-- CreateIndex
CREATE INDEX "payment_idempotency_keys_status_created_at_idx" ON "payment_idempotency_keys"("status", "created_at");
