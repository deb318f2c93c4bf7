-- AlterTable
ALTER TABLE "pos_card_settlement_exchanges" ADD COLUMN     "resolution_note" TEXT,
ADD COLUMN     "resolved_at" TIMESTAMPTZ(3),
ADD COLUMN     "resolved_by" TEXT;

-- A resolution is whole: when, by whom and what was done, or none of them.
ALTER TABLE "pos_card_settlement_exchanges" ADD CONSTRAINT "pos_card_settlement_exchanges_resolution_whole" CHECK (
  (resolved_at IS NULL) = (resolved_by IS NULL) AND (resolved_at IS NULL) = (resolution_note IS NULL)
);
