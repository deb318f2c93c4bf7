import { type Caller, createStep, createWorkflow, networkCallKeptWithRows } from "@pos-cloud/common";
import type { GatewayIntent } from "../gateway.client";
import { paymentMachine } from "../payment.machine";
import type { PaymentRow, Tx } from "../payment.repository";
import { auditPayment } from "../payment-audit";
import {
  applyToBill,
  GATEWAY_CALLS_IN_TRANSACTION,
  holdBill,
  intentBody,
  intentKey,
  type PaymentDeps,
  type PaymentDraft,
} from "./payment-flow";

export interface CashPayment {
  draft: PaymentDraft;
  /** Who takes the payment: the audit records' actor. */
  actor: Caller;
  cash_received: number;
  /** Keeps the payment as its Idempotency-Key's answer, in the transaction that makes it. */
  remember(tx: Tx, row: PaymentRow): Promise<void>;
}

/**
 * Takes a cash payment in one transaction: a refusal changes nothing. The gateway records it (manual mode, created
 * succeeded) last, under the bill's lock, so no intent is made for money the bill refuses. The intent has no
 * compensation: a retry of the request whose key was released takes over the same payment id, and the gateway's key
 * then answers that intent (docs/decisions.md, "POS Idempotency-Keys after a crash").
 */
export function takeCashPayment(deps: PaymentDeps) {
  const { payments, gateway, receipts, clock } = deps;
  const holdTheBill = createStep("hold-bill", (input: { tx: Tx; draft: PaymentDraft }) =>
    holdBill(deps, input.tx, input.draft),
  );
  const applyMoney = createStep("apply-to-bill", ({ tx, draft }: { tx: Tx; draft: PaymentDraft }) =>
    applyToBill(deps, tx, draft),
  );
  // Under the bill's lock, so no intent is made for money the bill refuses.
  const recordIntent = createStep("record-manual-intent", (draft: PaymentDraft) =>
    networkCallKeptWithRows(GATEWAY_CALLS_IN_TRANSACTION, () =>
      gateway.createIntent(intentBody(draft), intentKey(draft.id)),
    ),
  );
  const completePayment = createStep(
    "complete-payment",
    async ({ tx, payment, intent }: { tx: Tx; payment: CashPayment; intent: GatewayIntent }) => {
      const row = await payments.create(tx, {
        ...payment.draft,
        // Cash is confirmed by the staff member recording it: it completes as it is created.
        status: paymentMachine.transition("pending", "complete"),
        payment_intent_id: intent.id,
        cash_received: payment.cash_received,
        change_amount: payment.cash_received - payment.draft.total_amount,
        // Cash changes hands when the sale happens: recorded offline, that is its occurred_at.
        completed_at: payment.draft.occurred_at,
      });
      await auditPayment(tx, "payment.created", payment.actor, row, clock());
      await auditPayment(tx, "payment.completed", payment.actor, row, clock());
      await receipts.issue(tx, row.id);
      await payment.remember(tx, row);
      return row;
    },
  );

  return createWorkflow("takeCashPayment", async (payment: CashPayment, run) => {
    await gateway.ready();
    return payments.transaction(async (tx) => {
      const { draft } = payment;
      await run(holdTheBill, { tx, draft });
      await run(applyMoney, { tx, draft });
      const intent = await run(recordIntent, draft);
      return run(completePayment, { tx, payment, intent });
    });
  });
}
