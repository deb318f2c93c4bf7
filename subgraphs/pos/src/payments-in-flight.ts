import { AppError } from "@pos-cloud/common";
import type { PaymentRepository, Tx } from "./modules/payments/payment.repository";

export type PaymentsInFlight = ReturnType<typeof paymentsInFlight>;

/**
 * The late-card rule (docs/decisions.md): what ends a bill (cancel, combine, split) or a store's day (settlement
 * close) is refused while a card or QR payment of it is still in flight, since its money may already be taken and
 * must find the bill open. Bills and settlements ask here; payments take the same lock to start and complete.
 */
export function paymentsInFlight(payments: PaymentRepository) {
  return {
    /** The bill's payment lock: taken before the bill's row lock, in the order payment creation and completion take them. */
    lockBill: (tx: Tx, billId: string) => payments.lockBillPayments(tx, billId),

    /** Refuses (409 `invalid_state`, naming them) to `action` while payments of these bills, or this store's day, are in flight. */
    async requireNone(tx: Tx, of: { bill_ids: string[] } | { store_id: number; from: Date; to: Date }, action: string) {
      const held = await payments.inFlight(
        tx,
        "bill_ids" in of
          ? { bill_id: { in: of.bill_ids } }
          : { store_id: of.store_id, created_at: { gte: of.from, lt: of.to } },
      );
      if (held.length === 0) return;
      const named = held.map((payment) => `${payment.id} (${payment.method_type})`).join(", ");
      throw new AppError(
        "invalid_state",
        `cannot ${action} while a payment is in flight: ${named}; end it first (card result or QR cancel)`,
        {
          constraint: "no_payment_in_flight",
          payments: held.map((payment) => ({
            payment_id: payment.id,
            method: payment.method_type,
            bill_id: payment.bill_id,
          })),
        },
      );
    },
  };
}
