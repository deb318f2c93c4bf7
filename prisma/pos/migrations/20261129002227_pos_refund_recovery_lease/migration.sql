-- AlterTable
ALTER TABLE "pos_refunds" ADD COLUMN     "recovery_locked_until" TIMESTAMPTZ(3);
