-- CreateTable
CREATE TABLE "payments" (
    "id" UUID NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "bill_id" UUID NOT NULL,
    "split_id" UUID,
    "device_id" UUID,
    "amount" INTEGER NOT NULL,
    "tip_amount" INTEGER NOT NULL DEFAULT 0,
    "total_amount" INTEGER NOT NULL,
    "method_type" TEXT NOT NULL,
    "provider" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "payment_intent_id" TEXT,
    "payment_token" TEXT,
    "approval_code" TEXT,
    "card_document_number" TEXT,
    "card_last_4" TEXT,
    "card_brand" TEXT,
    "card_arn" TEXT,
    "cash_received" INTEGER,
    "change_amount" INTEGER,
    "refund_amount" INTEGER NOT NULL DEFAULT 0,
    "refund_reason" TEXT,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_idempotency_keys" (
    "store_id" INTEGER NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'processing',
    "response" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payment_idempotency_keys_pkey" PRIMARY KEY ("store_id","idempotency_key")
);

-- CreateTable
CREATE TABLE "processed_gateway_events" (
    "id" TEXT NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_gateway_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "payments_payment_intent_id_key" ON "payments"("payment_intent_id");

-- CreateIndex
CREATE INDEX "payments_bill_id_idx" ON "payments"("bill_id");

-- CreateIndex
CREATE INDEX "payments_store_id_created_at_idx" ON "payments"("store_id", "created_at");

-- CreateIndex
CREATE INDEX "payments_status_method_type_idx" ON "payments"("status", "method_type");

-- The database refuses a status or method it does not know and money that cannot be (Prisma does not model CHECK constraints).
ALTER TABLE "payments" ADD CONSTRAINT "payments_status_check" CHECK ("status" IN ('pending', 'processing', 'completed', 'failed', 'refunded'));
ALTER TABLE "payments" ADD CONSTRAINT "payments_method_type_check" CHECK ("method_type" IN ('CASH', 'CREDIT_CARD', 'QR'));
ALTER TABLE "payments" ADD CONSTRAINT "payments_amounts_check" CHECK ("amount" > 0 AND "tip_amount" >= 0 AND "total_amount" = "amount" + "tip_amount" AND "refund_amount" >= 0 AND "refund_amount" <= "amount" AND ("change_amount" IS NULL OR "change_amount" >= 0));
