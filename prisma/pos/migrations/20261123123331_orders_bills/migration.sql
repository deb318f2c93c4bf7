-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "bill_id" UUID,
ADD COLUMN     "cancelled_at" TIMESTAMPTZ(3),
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "daily_counters" (
    "store_id" INTEGER NOT NULL,
    "business_date" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "last_number" INTEGER NOT NULL,

    CONSTRAINT "daily_counters_pkey" PRIMARY KEY ("store_id","business_date","kind")
);

-- CreateTable
CREATE TABLE "bills" (
    "id" UUID NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "order_id" UUID,
    "bill_number" TEXT NOT NULL,
    "staff_code" TEXT NOT NULL,
    "customer_id" UUID,
    "tax_percentage" INTEGER,
    "subtotal" INTEGER NOT NULL,
    "discount_amount" INTEGER NOT NULL,
    "tax_amount" INTEGER NOT NULL,
    "total_amount" INTEGER NOT NULL,
    "paid_amount" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "is_split" BOOLEAN NOT NULL DEFAULT false,
    "is_combined" BOOLEAN NOT NULL DEFAULT false,
    "table_numbers" TEXT[],
    "combined_bill_ids" UUID[],
    "combined_table_numbers" TEXT[],
    "combined_into_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "paid_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "bills_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bill_splits" (
    "id" UUID NOT NULL,
    "bill_id" UUID NOT NULL,
    "sequence" INTEGER NOT NULL,
    "amount" INTEGER NOT NULL,
    "paid_amount" INTEGER NOT NULL DEFAULT 0,
    "item_ids" UUID[],
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bill_splits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bills_store_id_status_idx" ON "bills"("store_id", "status");

-- CreateIndex
CREATE INDEX "bills_store_id_created_at_idx" ON "bills"("store_id", "created_at");

-- CreateIndex
CREATE INDEX "bills_order_id_idx" ON "bills"("order_id");

-- CreateIndex
CREATE UNIQUE INDEX "bills_store_id_bill_number_key" ON "bills"("store_id", "bill_number");

-- CreateIndex
CREATE UNIQUE INDEX "bill_splits_bill_id_sequence_key" ON "bill_splits"("bill_id", "sequence");

-- CreateIndex
CREATE INDEX "orders_store_id_created_at_idx" ON "orders"("store_id", "created_at");

-- CreateIndex
CREATE INDEX "orders_bill_id_idx" ON "orders"("bill_id");

-- AddForeignKey
ALTER TABLE "bill_splits" ADD CONSTRAINT "bill_splits_bill_id_fkey" FOREIGN KEY ("bill_id") REFERENCES "bills"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The database refuses a status it does not know and money that cannot be (Prisma does not model CHECK constraints).
ALTER TABLE "orders" ADD CONSTRAINT "orders_status_check" CHECK ("status" IN ('open', 'billed', 'completed', 'cancelled'));
ALTER TABLE "orders" ADD CONSTRAINT "orders_order_type_check" CHECK ("order_type" IN ('dine_in', 'takeaway', 'delivery'));
ALTER TABLE "orders" ADD CONSTRAINT "orders_amounts_check" CHECK ("subtotal" >= 0 AND "tax_amount" >= 0 AND "discount_amount" >= 0 AND "discount_amount" <= "subtotal" AND "total_amount" = "subtotal" - "discount_amount" + "tax_amount");
ALTER TABLE "bills" ADD CONSTRAINT "bills_status_check" CHECK ("status" IN ('pending', 'partial', 'paid', 'cancelled'));
ALTER TABLE "bills" ADD CONSTRAINT "bills_amounts_check" CHECK ("subtotal" >= 0 AND "tax_amount" >= 0 AND "discount_amount" >= 0 AND "total_amount" = "subtotal" - "discount_amount" + "tax_amount" AND "paid_amount" >= 0 AND "paid_amount" <= "total_amount");
ALTER TABLE "bill_splits" ADD CONSTRAINT "bill_splits_status_check" CHECK ("status" IN ('pending', 'partial', 'paid'));
ALTER TABLE "bill_splits" ADD CONSTRAINT "bill_splits_amounts_check" CHECK ("amount" > 0 AND "paid_amount" >= 0 AND "paid_amount" <= "amount");
