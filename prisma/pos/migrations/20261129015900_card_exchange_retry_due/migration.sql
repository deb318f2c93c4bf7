-- AlterTable
ALTER TABLE "pos_card_settlement_exchanges" ADD COLUMN     "next_attempt_at" TIMESTAMPTZ(3);
