-- CreateTable
CREATE TABLE "gateway_sync_outbox" (
    "merchant_id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "locked_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "gateway_sync_outbox_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateIndex
CREATE INDEX "gateway_sync_outbox_next_attempt_at_idx" ON "gateway_sync_outbox"("next_attempt_at");
