import { type Caller, invalidField } from "@pos-cloud/common";
import { paymentMachine } from "./payment.machine";
import type { Tx } from "./payment.repository";
import { auditPayment } from "./payment-audit.repository";
import type { PaymentDeps } from "./workflows/payment-flow";

/** A refund the gateway made, as its payment takes it: who asked for it (null: unknown) and who approved it. */
export interface RefundMade {
  id: string;
  payment_id: string;
  amount: number;
  reason: string;
  staff_code: string;
  actor: Caller | null;
}

/**
 * What of a payment's refunds gives back bill money rather than tip: refunds take from the amount first, the tip last
 * (docs/decisions/pos.md, "Tips ride on top of the bill").
 */
export const billShareOfRefunds = (amount: number, refundedBefore: number, refunded: number) =>
  Math.min(refunded, amount) - Math.min(refundedBefore, amount);

/** What POS refunds ask of payments: the row lock, the money given back. */
export function paymentRefunds(deps: PaymentDeps) {
  const { payments, bills, customers, clock } = deps;
  return {
    /** For POS refunds, in the refund's first transaction: the payment locked, to count what its refunds hold. */
    lock: (tx: Tx, id: string) => payments.lock(tx, id),

    /** For the refunds' recovery pass, which acts for no caller: the gateway intent a payment's refunds go to. */
    intentOf: async (id: string) => (await payments.find(id))?.payment_intent_id ?? null,

    /**
     * For POS refunds, in the transaction that records a refund the gateway made: the payment's refunded total and
     * reason (refunded once it is all given back), and the bill's amounts.
     */
    async applyRefund(tx: Tx, refund: RefundMade) {
      const payment = await payments.lock(tx, refund.payment_id);
      const refunded = payment.refund_amount + refund.amount;
      if (refunded > payment.total_amount)
        throw invalidField("refund_amount", "refundable_amount", `at most ${payment.total_amount} can be refunded`);
      await payments.update(tx, payment.id, {
        refund_amount: refunded,
        refund_reason: refund.reason,
        status: paymentMachine.transition(
          payment.status,
          refunded === payment.total_amount ? "refund_in_full" : "refund_in_part",
        ),
      });
      await auditPayment(tx, "payment.refunded", refund.actor, payment, clock(), {
        refund_id: refund.id,
        refund_amount: refund.amount,
        refunded_total: refunded,
        approver_login_id: refund.staff_code,
      });
      const billShare = billShareOfRefunds(payment.amount, payment.refund_amount, refunded);
      if (billShare === 0) return;
      const bill = await bills.applyRefund(tx, { bill_id: payment.bill_id, amount: billShare });
      await customers.recordRefund(tx, bill, billShare);
    },
  };
}
