import type { CustomerRepository, Tx } from "./customer.repository";

/** The lifetime totals of a bill's customer, kept by POS payments and refunds inside their transactions. */
export function customerTotals(customers: CustomerRepository) {
  /** The totals' change of a bill's customer; bills without one, or of a customer of no merchant's, change nothing. */
  async function addToTotals(
    tx: Tx,
    bill: { merchant_id: number; customer_id: string | null },
    change: { spent: number; visits: number; at?: Date | null },
  ) {
    if (!bill.customer_id) return;
    await customers.addToTotals(
      tx,
      { id: bill.customer_id, merchant_id: bill.merchant_id },
      { ...change, at: change.at ?? undefined },
    );
  }

  return {
    /**
     * For POS payments, in the transaction that completes a payment and applies it to `bill` (as it is after): the
     * bill's customer spent the amount, and a bill this payment paid in full is one visit, at the time it was paid.
     */
    recordPayment: (
      tx: Tx,
      bill: { merchant_id: number; customer_id: string | null; status: string; paid_at: Date | null },
      amount: number,
    ) =>
      bill.status === "paid"
        ? addToTotals(tx, bill, { spent: amount, visits: 1, at: bill.paid_at })
        : addToTotals(tx, bill, { spent: amount, visits: 0 }),

    /**
     * For POS refunds, in the transaction that gives money back from `bill` (as it is after): the amount comes off
     * what the customer spent; a bill the refund cancelled (everything given back) is no longer a visit.
     */
    recordRefund: (tx: Tx, bill: { merchant_id: number; customer_id: string | null; status: string }, amount: number) =>
      addToTotals(tx, bill, { spent: -amount, visits: bill.status === "cancelled" ? -1 : 0 }),
  };
}
