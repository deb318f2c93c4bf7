-- AlterTable
ALTER TABLE "outgoing_messages" ADD COLUMN     "given_up_at" TIMESTAMPTZ(3);
