-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "psp_id" INTEGER;

-- CreateTable
CREATE TABLE "partner_grants" (
    "id" TEXT NOT NULL,
    "client_partner_id" INTEGER NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER,
    "granted_by" TEXT NOT NULL,
    "granted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_by" TEXT,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "partner_grants_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "partner_grants_client_partner_id_merchant_id_idx" ON "partner_grants"("client_partner_id", "merchant_id");

-- CreateIndex
CREATE INDEX "partner_grants_merchant_id_idx" ON "partner_grants"("merchant_id");

-- CreateIndex
CREATE UNIQUE INDEX "partner_grants_live_merchant_key" ON "partner_grants"("client_partner_id", "merchant_id") WHERE (store_id IS NULL AND revoked_at IS NULL);

-- CreateIndex
CREATE UNIQUE INDEX "partner_grants_live_store_key" ON "partner_grants"("client_partner_id", "store_id") WHERE (revoked_at IS NULL);

-- AddForeignKey
ALTER TABLE "partner_grants" ADD CONSTRAINT "partner_grants_client_partner_id_fkey" FOREIGN KEY ("client_partner_id") REFERENCES "client_partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "partner_grants" ADD CONSTRAINT "partner_grants_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Merchants an operator granted in code were held by their partner: each becomes a grant of the whole merchant, so
-- the partner keeps what it had.
INSERT INTO "partner_grants" ("id", "client_partner_id", "merchant_id", "granted_by", "granted_at")
SELECT 'grt_migrated_' || m."id", m."client_partner_id", m."id", 'platform', CURRENT_TIMESTAMP
FROM "merchants" m JOIN "client_partners" p ON p."id" = m."client_partner_id"
WHERE NOT p."is_sync_partner";
