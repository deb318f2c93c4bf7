-- AlterTable
ALTER TABLE "outbox_events" ADD COLUMN     "traceparent" TEXT;

-- AlterTable
ALTER TABLE "partner_webhook_deliveries" ADD COLUMN     "traceparent" TEXT;
