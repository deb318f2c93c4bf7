-- AlterTable
ALTER TABLE "bills" ADD COLUMN     "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "recorded_offline" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "recorded_offline" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "recorded_offline" BOOLEAN NOT NULL DEFAULT false;

-- What was recorded before happened when it was received. The backfill is no change anyone made: the store feed's
-- triggers stay out of it.
ALTER TABLE "bills" DISABLE TRIGGER "bills_outbox_updated";
ALTER TABLE "orders" DISABLE TRIGGER "orders_outbox_updated";
ALTER TABLE "payments" DISABLE TRIGGER "payments_outbox_updated";
UPDATE "bills" SET "occurred_at" = "created_at";
UPDATE "orders" SET "occurred_at" = "created_at";
UPDATE "payments" SET "occurred_at" = "created_at";
ALTER TABLE "bills" ENABLE TRIGGER "bills_outbox_updated";
ALTER TABLE "orders" ENABLE TRIGGER "orders_outbox_updated";
ALTER TABLE "payments" ENABLE TRIGGER "payments_outbox_updated";
