-- AlterTable
ALTER TABLE "pos_settlement_entries" ADD COLUMN     "tip_amount" INTEGER NOT NULL DEFAULT 0;

-- Refunds give back a tip too (docs/decisions/pos.md, "Tips ride on top of the bill"): at most the total charged.
ALTER TABLE "payments" DROP CONSTRAINT "payments_amounts_check";
ALTER TABLE "payments" ADD CONSTRAINT "payments_amounts_check" CHECK ("amount" > 0 AND "tip_amount" >= 0 AND "total_amount" = "amount" + "tip_amount" AND "refund_amount" >= 0 AND "refund_amount" <= "total_amount" AND ("change_amount" IS NULL OR "change_amount" >= 0));
