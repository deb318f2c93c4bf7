-- CreateTable
CREATE TABLE "payment_intents" (
    "id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "client_partner_id" INTEGER NOT NULL,
    "merchant_ref_id" TEXT NOT NULL,
    "merchant_store_id" TEXT,
    "merchant_terminal_id" TEXT,
    "order_id" TEXT,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "payment_method_types" TEXT[],
    "payment_method_type" TEXT,
    "processing_mode" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "provider_name" TEXT,
    "provider_transaction_id" TEXT,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "description" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payment_intents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "payment_intents_provider_transaction_id_key" ON "payment_intents"("provider_transaction_id");

-- CreateIndex
CREATE INDEX "payment_intents_store_id_status_idx" ON "payment_intents"("store_id", "status");

-- CreateIndex
CREATE INDEX "payment_intents_client_partner_id_created_at_idx" ON "payment_intents"("client_partner_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "payment_intents_merchant_id_merchant_ref_id_key" ON "payment_intents"("merchant_id", "merchant_ref_id");
