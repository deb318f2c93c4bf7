-- AlterTable
ALTER TABLE "client_partners" ADD COLUMN     "is_sync_partner" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "synced_until" TIMESTAMPTZ(3);
