-- AlterTable
ALTER TABLE "bills" ADD COLUMN     "refunded_amount" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "pos_refunds" (
    "id" UUID NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "payment_id" UUID NOT NULL,
    "bill_id" UUID NOT NULL,
    "amount" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "staff_code" TEXT NOT NULL,
    "device_id" UUID,
    "user_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "gateway_refund_id" TEXT,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "pos_refunds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "pos_refunds_payment_id_idx" ON "pos_refunds"("payment_id");

-- CreateIndex
CREATE INDEX "pos_refunds_status_created_at_idx" ON "pos_refunds"("status", "created_at");

-- The database refuses a status it does not know and money that cannot be (Prisma does not model CHECK constraints).
ALTER TABLE "bills" DROP CONSTRAINT "bills_amounts_check";
ALTER TABLE "bills" ADD CONSTRAINT "bills_amounts_check" CHECK ("subtotal" >= 0 AND "tax_amount" >= 0 AND "discount_amount" >= 0 AND "total_amount" = "subtotal" - "discount_amount" + "tax_amount" AND "paid_amount" >= 0 AND "refunded_amount" >= 0 AND "paid_amount" + "refunded_amount" <= "total_amount");
ALTER TABLE "pos_refunds" ADD CONSTRAINT "pos_refunds_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed'));
ALTER TABLE "pos_refunds" ADD CONSTRAINT "pos_refunds_amount_check" CHECK ("amount" > 0);
