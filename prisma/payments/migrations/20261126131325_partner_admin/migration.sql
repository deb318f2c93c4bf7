-- AlterTable: keys issued before expiry existed run to 180 days after issue, but at least 30 days from now, so
-- every partner hears of the rotation (the 30-day notice) before a key it relies on stops working.
ALTER TABLE "api_keys" ADD COLUMN     "expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "expiry_notice_days" INTEGER,
ADD COLUMN     "last_used_at" TIMESTAMPTZ(3);
UPDATE "api_keys" SET "expires_at" = GREATEST("created_at" + INTERVAL '180 days', now() + INTERVAL '30 days');
ALTER TABLE "api_keys" ALTER COLUMN "expires_at" SET NOT NULL;

-- AlterTable
ALTER TABLE "client_partners" ADD COLUMN     "deactivated_at" TIMESTAMPTZ(3),
ADD COLUMN     "is_active" BOOLEAN NOT NULL DEFAULT true;

-- CreateIndex
CREATE INDEX "api_keys_is_active_expires_at_idx" ON "api_keys"("is_active", "expires_at");
