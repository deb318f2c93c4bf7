-- AlterTable
ALTER TABLE "merchants" DROP COLUMN "settings",
ADD COLUMN     "branding" JSONB,
ADD COLUMN     "default_payment_methods" TEXT[],
ADD COLUMN     "invoice_config" JSONB,
ADD COLUMN     "payment_config" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "provider_credentials" TEXT,
ADD COLUMN     "receipt_template" TEXT,
ADD COLUMN     "settlement_frequency" TEXT NOT NULL DEFAULT 'daily',
ADD COLUMN     "terminal_limit_per_store" INTEGER;

-- AlterTable
ALTER TABLE "stores" DROP COLUMN "settings",
ADD COLUMN     "enabled_payment_methods" TEXT[],
ADD COLUMN     "payment_config" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "printer_config" JSONB,
ADD COLUMN     "provider_credentials" TEXT,
ADD COLUMN     "receipt_delivery" TEXT[],
ADD COLUMN     "receipt_settings" JSONB,
ADD COLUMN     "table_assignments" TEXT[],
ADD COLUMN     "tax_rate" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "devices" (
    "id" UUID NOT NULL,
    "serial_number" TEXT NOT NULL,
    "client_id" TEXT,
    "merchant_id" INTEGER,
    "store_id" INTEGER,
    "public_key_jwk" JSONB,
    "status" TEXT NOT NULL DEFAULT 'unprovisioned',
    "model" TEXT NOT NULL,
    "manufacturer" TEXT NOT NULL,
    "activated_at" TIMESTAMPTZ(3),
    "last_connected_at" TIMESTAMPTZ(3),
    "battery_level" INTEGER,
    "paper_status" TEXT,
    "latitude" DOUBLE PRECISION,
    "longitude" DOUBLE PRECISION,
    "config" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "devices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "activation_codes" (
    "code_hash" TEXT NOT NULL,
    "device_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "activated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "activation_codes_pkey" PRIMARY KEY ("code_hash")
);

-- CreateTable
CREATE TABLE "used_assertions" (
    "client_id" TEXT NOT NULL,
    "jti" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "used_assertions_pkey" PRIMARY KEY ("client_id","jti")
);

-- CreateTable
CREATE TABLE "rate_counters" (
    "key" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_counters_pkey" PRIMARY KEY ("key","window_start")
);

-- CreateTable
CREATE TABLE "app_versions" (
    "id" SERIAL NOT NULL,
    "app_name" TEXT NOT NULL,
    "version_code" INTEGER NOT NULL,
    "version_name" TEXT NOT NULL,
    "apk_url" TEXT NOT NULL,
    "apk_size" INTEGER NOT NULL,
    "apk_checksum" TEXT NOT NULL,
    "release_notes" TEXT NOT NULL DEFAULT '',
    "min_os_version" TEXT NOT NULL,
    "is_mandatory" BOOLEAN NOT NULL DEFAULT false,
    "rollout_percentage" INTEGER NOT NULL DEFAULT 0,
    "release_status" TEXT NOT NULL DEFAULT 'beta',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "app_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "app_version_enrollments" (
    "app_version_id" INTEGER NOT NULL,
    "device_id" UUID NOT NULL,

    CONSTRAINT "app_version_enrollments_pkey" PRIMARY KEY ("app_version_id","device_id")
);

-- CreateTable
CREATE TABLE "app_installs" (
    "id" UUID NOT NULL,
    "device_id" UUID NOT NULL,
    "app_name" TEXT,
    "version_code" INTEGER NOT NULL,
    "install_status" TEXT NOT NULL,
    "reported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "app_installs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "devices_serial_number_key" ON "devices"("serial_number");

-- CreateIndex
CREATE UNIQUE INDEX "devices_client_id_key" ON "devices"("client_id");

-- CreateIndex
CREATE INDEX "devices_store_id_idx" ON "devices"("store_id");

-- CreateIndex
CREATE INDEX "devices_merchant_id_idx" ON "devices"("merchant_id");

-- CreateIndex
CREATE INDEX "activation_codes_device_id_idx" ON "activation_codes"("device_id");

-- CreateIndex
CREATE INDEX "used_assertions_expires_at_idx" ON "used_assertions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "app_versions_app_name_version_code_key" ON "app_versions"("app_name", "version_code");

-- CreateIndex
CREATE INDEX "app_installs_device_id_idx" ON "app_installs"("device_id");

-- CreateIndex
CREATE INDEX "stores_merchant_id_idx" ON "stores"("merchant_id");

-- AddForeignKey
ALTER TABLE "devices" ADD CONSTRAINT "devices_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "app_version_enrollments" ADD CONSTRAINT "app_version_enrollments_app_version_id_fkey" FOREIGN KEY ("app_version_id") REFERENCES "app_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
