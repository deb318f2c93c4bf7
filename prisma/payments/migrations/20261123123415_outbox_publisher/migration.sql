-- DropIndex
DROP INDEX "outbox_events_aggregate_type_aggregate_id_created_at_idx";

-- DropIndex
DROP INDEX "outbox_events_pending_created_at_idx";

-- AlterTable
ALTER TABLE "outbox_events" ADD COLUMN     "next_attempt_at" TIMESTAMPTZ(3),
ADD COLUMN     "seq" BIGSERIAL NOT NULL;

-- CreateIndex
CREATE INDEX "outbox_events_pending_seq_idx" ON "outbox_events"("seq") WHERE (status = 'pending');

-- CreateIndex
CREATE INDEX "outbox_events_aggregate_type_aggregate_id_seq_idx" ON "outbox_events"("aggregate_type", "aggregate_id", "seq");
