import { invalidField, notFound } from "@pos-cloud/common";
import type { OrderService } from "../orders";
import { billMachine, paymentEvent, refundEvent, requireBillMove } from "./bill.machine";
import { presentBill } from "./bill.presenter";
import type { BillRepository, Tx } from "./bill.repository";

/** Money applied to a bill, or to one split of it. */
export interface PaymentToApply {
  bill_id: string;
  split_id?: string | null;
  amount: number;
}

/** What POS payments and refunds ask of bills, inside their own transactions and under the bill's row lock. */
export function billPayments(bills: BillRepository, orders: OrderService, clock: () => Date) {
  return {
    /**
     * For POS payments, under the bill's payment lock as a payment starts: the bill locked and read again, refused
     * unless it can take a payment (it may have been cancelled, combined or paid since the request read it).
     */
    async payable(tx: Tx, id: string) {
      const bill = await bills.lock(tx, id);
      if (!bill) throw notFound("bill");
      // A bill takes a payment in part wherever it takes one in full.
      requireBillMove("pay_in_part", bill);
      return presentBill(bill);
    },

    /**
     * For POS payments, inside the transaction that records the payment: applies money to a bill (and to the split
     * it names) under a lock on the bill's row, so concurrent payments are checked one after another and never pay
     * more than remains. A split bill is paid split by split. The bill becomes partial, or paid, and then its orders
     * complete. Throws (changing nothing) when the amount does not fit.
     */
    async applyPayment(tx: Tx, payment: PaymentToApply) {
      const bill = await bills.lock(tx, payment.bill_id);
      if (!bill) throw notFound("bill");
      requireBillMove("pay_in_part", bill);
      if (!Number.isSafeInteger(payment.amount) || payment.amount <= 0)
        throw invalidField("amount", "positive", "amount must be a positive integer");
      const remaining = bill.total_amount - bill.paid_amount - bill.refunded_amount;
      if (payment.amount > remaining)
        throw invalidField("amount", "remaining_amount", `at most ${remaining} remains to pay on the bill`);
      const at = clock();
      if (bill.is_split || payment.split_id) {
        const split = bill.splits.find((part) => part.id === payment.split_id);
        if (!split) throw invalidField("split_id", "split_of_bill", "name one split of this bill to pay");
        const left = split.amount - split.paid_amount;
        if (payment.amount > left)
          throw invalidField("amount", "remaining_amount", `at most ${left} remains to pay on the split`);
        const paid = split.paid_amount + payment.amount;
        const status = billMachine.transition(split.status, paymentEvent(paid, split.amount));
        await bills.updateSplit(tx, split.id, { paid_amount: paid, status });
      }
      const paid = bill.paid_amount + payment.amount;
      const status = requireBillMove(paymentEvent(paid, bill.total_amount), bill);
      if (status === "paid") await orders.completeOfBill(tx, bill.id, at);
      return presentBill(
        await bills.update(tx, bill.id, { paid_amount: paid, status, paid_at: status === "paid" ? at : null }),
      );
    },

    /**
     * For POS refunds, inside the transaction that records the refund: gives money back from a bill under its row
     * lock. paid_amount falls by the amount and refunded_amount rises, so what remains to pay does not change; a paid
     * bill left with nothing paid is cancelled. Splits keep what was paid on them.
     */
    async applyRefund(tx: Tx, refund: { bill_id: string; amount: number }) {
      const bill = await bills.lock(tx, refund.bill_id);
      if (!bill) throw notFound("bill");
      requireBillMove("refund_in_part", bill);
      if (refund.amount > bill.paid_amount)
        throw invalidField("refund_amount", "paid_amount", `at most ${bill.paid_amount} was paid on the bill`);
      const paid = bill.paid_amount - refund.amount;
      return presentBill(
        await bills.update(tx, bill.id, {
          paid_amount: paid,
          refunded_amount: bill.refunded_amount + refund.amount,
          status: requireBillMove(refundEvent(paid), bill),
        }),
      );
    },
  };
}
