-- CreateTable
CREATE TABLE "partner_webhook_settings" (
    "client_id" TEXT NOT NULL,
    "auto_redelivery" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "partner_webhook_settings_pkey" PRIMARY KEY ("client_id")
);

-- The only orders an automatic redelivery knows (docs/decisions/events.md, "Webhooks a partner can rely on").
ALTER TABLE "partner_webhook_settings" ADD CONSTRAINT "partner_webhook_settings_auto_redelivery_check"
  CHECK ("auto_redelivery" IN ('oldest_first', 'newest_first'));
