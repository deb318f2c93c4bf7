-- CreateTable
CREATE TABLE "partner_webhook_attempts" (
    "id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "latency_ms" INTEGER NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "partner_webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "partner_webhook_attempts_delivery_id_attempted_at_idx" ON "partner_webhook_attempts"("delivery_id", "attempted_at");

-- CreateIndex
CREATE INDEX "partner_webhook_deliveries_client_id_created_at_idx" ON "partner_webhook_deliveries"("client_id", "created_at");

-- AddForeignKey
ALTER TABLE "partner_webhook_attempts" ADD CONSTRAINT "partner_webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "partner_webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

