-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "added_tip_amount" INTEGER NOT NULL DEFAULT 0;
