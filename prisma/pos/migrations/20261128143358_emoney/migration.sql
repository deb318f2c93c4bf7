-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "emoney_brand" TEXT;

-- E-money is a method of its own, and an e-money payment always names its brand (nothing else names one).
ALTER TABLE "payments" DROP CONSTRAINT "payments_method_type_check";
ALTER TABLE "payments" ADD CONSTRAINT "payments_method_type_check" CHECK ("method_type" IN ('CASH', 'CREDIT_CARD', 'EMONEY', 'QR'));
ALTER TABLE "payments" ADD CONSTRAINT "payments_emoney_brand_check" CHECK (
  ("method_type" = 'EMONEY') = ("emoney_brand" IS NOT NULL)
  AND ("emoney_brand" IS NULL OR "emoney_brand" IN ('transport_ic', 'id', 'quicpay', 'waon', 'nanaco', 'rakuten_edy'))
);
ALTER TABLE "pos_settlement_entries" DROP CONSTRAINT "pos_settlement_entries_method_type_check";
ALTER TABLE "pos_settlement_entries" ADD CONSTRAINT "pos_settlement_entries_method_type_check" CHECK ("method_type" IN ('CASH', 'CREDIT_CARD', 'EMONEY', 'QR'));
