-- CreateTable
CREATE TABLE "pos_settlements" (
    "id" UUID NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "business_date" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "window_end" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "auto_close" BOOLEAN NOT NULL DEFAULT false,
    "created_by" TEXT NOT NULL,
    "staff_code" TEXT,
    "closed_by" TEXT,
    "closed_staff_code" TEXT,
    "closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pos_settlements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pos_settlement_entries" (
    "kind" TEXT NOT NULL,
    "source_id" UUID NOT NULL,
    "settlement_id" UUID NOT NULL,
    "method_type" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "carried_over" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "pos_settlement_entries_pkey" PRIMARY KEY ("kind","source_id")
);

-- CreateTable
CREATE TABLE "pos_card_settlement_exchanges" (
    "settlement_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "claimed_until" TIMESTAMPTZ(3) NOT NULL,
    "last_error" TEXT,
    "upload_file" TEXT,
    "upload_count" INTEGER,
    "upload_amount" INTEGER,
    "uploaded_at" TIMESTAMPTZ(3),
    "report_file" TEXT,
    "report_content" TEXT,
    "report_merchant_id" TEXT,
    "report_date" TEXT,
    "report_transaction_count" INTEGER,
    "report_gross_amount" INTEGER,
    "report_fees" INTEGER,
    "report_net_amount" INTEGER,
    "received_at" TIMESTAMPTZ(3),
    "differences" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pos_card_settlement_exchanges_pkey" PRIMARY KEY ("settlement_id")
);

-- CreateTable
CREATE TABLE "pos_notifications" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "settlement_id" UUID,
    "business_date" TEXT,
    "message" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pos_notifications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "pos_settlements_merchant_id_business_date_idx" ON "pos_settlements"("merchant_id", "business_date");

-- CreateIndex
CREATE INDEX "pos_settlements_business_date_idx" ON "pos_settlements"("business_date");

-- CreateIndex
CREATE UNIQUE INDEX "pos_settlements_store_id_business_date_key" ON "pos_settlements"("store_id", "business_date");

-- CreateIndex
CREATE INDEX "pos_settlement_entries_settlement_id_idx" ON "pos_settlement_entries"("settlement_id");

-- CreateIndex
CREATE INDEX "pos_card_settlement_exchanges_status_idx" ON "pos_card_settlement_exchanges"("status");

-- CreateIndex
CREATE INDEX "pos_notifications_created_at_idx" ON "pos_notifications"("created_at");

-- CreateIndex
CREATE INDEX "pos_notifications_merchant_id_created_at_idx" ON "pos_notifications"("merchant_id", "created_at");

-- The database refuses a status or kind it does not know and a date that is not one (Prisma does not model CHECK
-- constraints).
ALTER TABLE "pos_settlements" ADD CONSTRAINT "pos_settlements_status_check" CHECK ("status" IN ('open', 'closed'));
ALTER TABLE "pos_settlements" ADD CONSTRAINT "pos_settlements_business_date_check" CHECK ("business_date" ~ '^\d{4}-\d{2}-\d{2}$' AND "window_start" < "window_end");
ALTER TABLE "pos_settlements" ADD CONSTRAINT "pos_settlements_closed_check" CHECK (("status" = 'closed') = ("closed_at" IS NOT NULL));
ALTER TABLE "pos_settlement_entries" ADD CONSTRAINT "pos_settlement_entries_kind_check" CHECK ("kind" IN ('payment', 'refund') AND "amount" > 0);
ALTER TABLE "pos_settlement_entries" ADD CONSTRAINT "pos_settlement_entries_method_type_check" CHECK ("method_type" IN ('CASH', 'CREDIT_CARD', 'QR'));
ALTER TABLE "pos_card_settlement_exchanges" ADD CONSTRAINT "pos_card_settlement_exchanges_status_check" CHECK ("status" IN ('running', 'matched', 'mismatch', 'failed'));
ALTER TABLE "pos_notifications" ADD CONSTRAINT "pos_notifications_kind_check" CHECK ("kind" IN ('card_exchange_failed', 'card_settlement_mismatch'));
