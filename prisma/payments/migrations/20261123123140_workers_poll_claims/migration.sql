-- AlterTable
ALTER TABLE "payment_intents" ADD COLUMN     "next_poll_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "poll_attempts" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "next_poll_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "poll_attempts" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "confirm_attempts" (
    "id" TEXT NOT NULL,
    "payment_intent_id" TEXT NOT NULL,
    "provider_name" TEXT NOT NULL,
    "payment_method_type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "provider_transaction_id" TEXT,
    "failure_code" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "next_poll_at" TIMESTAMPTZ(3) NOT NULL,
    "poll_attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "confirm_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "confirm_attempts_provider_transaction_id_key" ON "confirm_attempts"("provider_transaction_id");

-- CreateIndex
CREATE INDEX "confirm_attempts_payment_intent_id_idx" ON "confirm_attempts"("payment_intent_id");

-- CreateIndex
CREATE INDEX "confirm_attempts_status_next_poll_at_idx" ON "confirm_attempts"("status", "next_poll_at");

-- CreateIndex
CREATE INDEX "payment_intents_status_next_poll_at_idx" ON "payment_intents"("status", "next_poll_at");

-- CreateIndex
CREATE INDEX "refunds_status_next_poll_at_idx" ON "refunds"("status", "next_poll_at");
