-- AlterTable
ALTER TABLE "payment_intents" ADD COLUMN     "amount_capturable" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "amount_received" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "tip_ceiling_percent" INTEGER NOT NULL DEFAULT 20;

-- Intents of before: what succeeded received its amount; an external one still waiting may be captured for it.
UPDATE "payment_intents" SET "amount_received" = "amount" WHERE "status" IN ('succeeded', 'cancelling');
UPDATE "payment_intents" SET "amount_capturable" = "amount"
  WHERE "processing_mode" = 'external' AND "status" IN ('requires_action', 'processing');
ALTER TABLE "stores" ADD CONSTRAINT "stores_tip_ceiling_percent_check" CHECK ("tip_ceiling_percent" BETWEEN 0 AND 100);
