import type { BillRow } from "./bill.repository";

/** A bill as clients see it: what remains to pay on it (refunded money is not asked again) and on each split. */
export function presentBill(bill: BillRow) {
  return {
    ...bill,
    remaining_amount: bill.total_amount - bill.paid_amount - bill.refunded_amount,
    combined_into_bill_id: bill.combined_into_id,
    splits: bill.splits.map((split) => ({ ...split, remaining_amount: split.amount - split.paid_amount })),
  };
}
