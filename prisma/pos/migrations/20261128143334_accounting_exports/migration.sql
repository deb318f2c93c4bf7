-- CreateTable
CREATE TABLE "pos_accounting_exports" (
    "merchant_id" INTEGER NOT NULL,
    "format" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "username" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "auth_method" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "updated_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pos_accounting_exports_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateTable
CREATE TABLE "pos_accounting_export_deliveries" (
    "id" UUID NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "business_date" TEXT NOT NULL,
    "settlement_id" UUID NOT NULL,
    "file_name" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pos_accounting_export_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "pos_accounting_export_deliveries_status_next_attempt_at_idx" ON "pos_accounting_export_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "pos_accounting_export_deliveries_store_id_business_date_key" ON "pos_accounting_export_deliveries"("store_id", "business_date");

-- The database refuses what the code does not know.
ALTER TABLE "pos_accounting_exports" ADD CONSTRAINT "pos_accounting_exports_format_check" CHECK ("format" IN ('csv', 'json', 'xml'));
ALTER TABLE "pos_accounting_exports" ADD CONSTRAINT "pos_accounting_exports_auth_method_check" CHECK ("auth_method" IN ('password', 'private_key'));
ALTER TABLE "pos_accounting_export_deliveries" ADD CONSTRAINT "pos_accounting_export_deliveries_status_check" CHECK ("status" IN ('pending', 'delivered', 'failed'));
