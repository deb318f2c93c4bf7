-- CreateTable
CREATE TABLE "customers" (
    "id" UUID NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "customer_number" TEXT NOT NULL,
    "name" TEXT,
    "name_kana" TEXT,
    "phone" TEXT,
    "email" TEXT,
    "date_of_birth" DATE,
    "gender" TEXT,
    "address_postal_code" TEXT,
    "address_prefecture" TEXT,
    "address_city" TEXT,
    "address_street" TEXT,
    "receipt_delivery" TEXT,
    "language" TEXT,
    "total_spent" INTEGER NOT NULL DEFAULT 0,
    "total_visits" INTEGER NOT NULL DEFAULT 0,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_visit" TIMESTAMPTZ(3),

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_counters" (
    "merchant_id" INTEGER NOT NULL,
    "last_number" INTEGER NOT NULL,

    CONSTRAINT "customer_counters_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateIndex
CREATE INDEX "customers_merchant_id_name_idx" ON "customers"("merchant_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "customers_merchant_id_customer_number_key" ON "customers"("merchant_id", "customer_number");

-- CreateIndex
CREATE UNIQUE INDEX "customers_merchant_id_phone_key" ON "customers"("merchant_id", "phone");

-- CreateIndex
CREATE UNIQUE INDEX "customers_merchant_id_email_key" ON "customers"("merchant_id", "email");

-- CreateIndex
CREATE INDEX "orders_customer_id_created_at_idx" ON "orders"("customer_id", "created_at");

-- The database refuses a customer it cannot reach, values outside the closed sets, and totals that cannot be.
ALTER TABLE "customers" ADD CONSTRAINT "customers_contact_check" CHECK ("phone" IS NOT NULL OR "email" IS NOT NULL);
ALTER TABLE "customers" ADD CONSTRAINT "customers_gender_check" CHECK ("gender" IN ('male', 'female', 'other', 'prefer_not_to_say'));
ALTER TABLE "customers" ADD CONSTRAINT "customers_receipt_delivery_check" CHECK ("receipt_delivery" IN ('email', 'sms', 'print', 'none'));
ALTER TABLE "customers" ADD CONSTRAINT "customers_language_check" CHECK ("language" IN ('ja', 'en'));
ALTER TABLE "customers" ADD CONSTRAINT "customers_totals_check" CHECK ("total_spent" >= 0 AND "total_visits" >= 0);
