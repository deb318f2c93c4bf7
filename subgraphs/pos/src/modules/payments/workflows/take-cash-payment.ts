import { type Caller, createWorkflow } from "@pos-cloud/common";
import type { PaymentRow, Tx } from "../payment.repository";
import type { PaymentDeps, PaymentDraft } from "./payment-flow";
import { completeCashPayment, createIntent, reserveBill } from "./payment-steps";

export interface CashPayment {
  draft: PaymentDraft;
  /** Who takes the payment: the audit records' actor. */
  actor: Caller;
  cash_received: number;
  /** Keeps the payment as its Idempotency-Key's answer, in the transaction that completes it. */
  remember(tx: Tx, row: PaymentRow): Promise<void>;
}

/**
 * Takes a cash payment in three steps, with no transaction open while the gateway is called: the payment is recorded
 * pending under its bill's lock (a refusal records nothing), the gateway records it (manual mode, created
 * succeeded), then the payment completes with it and its money goes to the bill. A failure fails the pending
 * payment, which frees the bill; a process that dies between the steps leaves it pending for the recovery pass,
 * which completes it (docs/decisions/pos.md, "No gateway call inside a POS transaction").
 */
export function takeCashPayment(deps: PaymentDeps) {
  const reserve = reserveBill(deps);
  const recordIntent = createIntent(deps);
  const complete = completeCashPayment(deps);

  return createWorkflow("takeCashPayment", async ({ draft, actor, cash_received, remember }: CashPayment, run) => {
    await run(reserve, {
      draft: { ...draft, cash_received, change_amount: cash_received - draft.total_amount },
      actor,
    });
    const intent = await run(recordIntent, draft);
    return run(complete, { payment: draft, intent, actor, remember });
  });
}
