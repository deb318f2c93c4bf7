-- AlterTable
ALTER TABLE "pos_accounting_exports" ADD COLUMN     "host_key_fingerprint" TEXT,
ADD COLUMN     "host_key_learned_at" TIMESTAMPTZ(3);
