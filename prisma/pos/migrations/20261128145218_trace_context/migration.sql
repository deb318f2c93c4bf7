-- AlterTable
ALTER TABLE "outbox_events" ADD COLUMN     "traceparent" TEXT;
