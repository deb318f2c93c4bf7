-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "previous_webhook_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_webhook_secret_sealed" TEXT;

-- AlterTable
ALTER TABLE "client_partners" ADD COLUMN     "psp_id" INTEGER;

-- CreateTable
CREATE TABLE "partner_webhook_deliveries" (
    "id" TEXT NOT NULL,
    "source_event_id" TEXT NOT NULL,
    "client_partner_id" INTEGER NOT NULL,
    "client_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "last_error" TEXT,
    "last_status_code" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "partner_webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "partner_webhook_deliveries_pending_idx" ON "partner_webhook_deliveries"("next_attempt_at") WHERE (status = 'pending');

-- CreateIndex
CREATE INDEX "partner_webhook_deliveries_status_client_id_updated_at_idx" ON "partner_webhook_deliveries"("status", "client_id", "updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "partner_webhook_deliveries_source_event_id_client_id_key" ON "partner_webhook_deliveries"("source_event_id", "client_id");
