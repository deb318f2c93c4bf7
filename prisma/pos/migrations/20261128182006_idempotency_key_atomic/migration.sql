-- AlterTable
ALTER TABLE "payment_idempotency_keys" ADD COLUMN     "atomic" BOOLEAN NOT NULL DEFAULT false;
