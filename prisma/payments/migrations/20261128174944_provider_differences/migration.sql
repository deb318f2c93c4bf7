-- CreateTable
CREATE TABLE "provider_differences" (
    "id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "business_date" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "payment_intent_id" TEXT,
    "provider_transaction_id" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "expected" TEXT NOT NULL,
    "actual" TEXT NOT NULL,
    "detected_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provider_differences_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "provider_differences_store_id_business_date_idx" ON "provider_differences"("store_id", "business_date");

-- CreateIndex
CREATE UNIQUE INDEX "provider_differences_provider_provider_transaction_id_field_key" ON "provider_differences"("provider", "provider_transaction_id", "field");

-- The fields a difference can be about.
ALTER TABLE "provider_differences" ADD CONSTRAINT "provider_differences_field_check"
  CHECK ("field" IN ('status', 'amount', 'refunded_amount', 'payment'));
