import { nextDailyNumber } from "../../daily-number";
import type { Prisma, PrismaClient, Receipt } from "../../generated/prisma/client";

export type ReceiptRepository = ReturnType<typeof receiptRepository>;
export type Tx = Prisma.TransactionClient;
export type ReceiptRow = Receipt;

/** Payments that have a receipt: completed ones, and those refunded since. */
const withReceipt = ["completed", "refunded"];

export function receiptRepository(prisma: PrismaClient) {
  return {
    /**
     * The receipt of a payment, numbered now if it has none: in the transaction that completed the payment (which
     * holds its row), so the number is taken once, on the business day the payment completed. Null for a payment
     * that is not completed.
     */
    async issue(tx: Tx, paymentId: string): Promise<ReceiptRow | null> {
      const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId } });
      if (!withReceipt.includes(payment.status) || !payment.completed_at) return null;
      const issued = await tx.receipt.findUnique({ where: { payment_id: payment.id } });
      if (issued) return issued;
      return tx.receipt.create({
        data: {
          merchant_id: payment.merchant_id,
          store_id: payment.store_id,
          payment_id: payment.id,
          receipt_number: await nextDailyNumber(tx, payment.store_id, "receipt", payment.completed_at),
          issued_at: payment.completed_at,
        },
      });
    },

    find: (paymentId: string) => prisma.receipt.findUnique({ where: { payment_id: paymentId } }),

    transaction: <T>(work: (tx: Tx) => Promise<T>) => prisma.$transaction(work, { timeout: 20_000, maxWait: 20_000 }),
  };
}
