import { type Caller, createStep, createWorkflow } from "@pos-cloud/common";
import type { GatewayIntent } from "../gateway.client";
import type { PaymentRow, Tx } from "../payment.repository";
import type { PaymentDeps, PaymentDraft } from "./payment-flow";
import { createIntent, reserveBill } from "./payment-steps";

export interface ExternalPayment {
  draft: PaymentDraft;
  /** Who takes the payment: the audit record's actor. */
  actor: Caller;
  /** Keeps the payment as its Idempotency-Key's answer, in the transaction that attaches its intent. */
  remember(tx: Tx, row: PaymentRow): Promise<void>;
}

/**
 * Takes a card or QR payment: the bill is reserved (the payment recorded pending, holding its amount), the gateway
 * intent made, then attached to the payment. A failure cancels the intent and fails the payment, which frees the
 * bill; a process that dies between the steps leaves a pending payment without its intent, for the recovery pass.
 */
export function takeExternalPayment(deps: PaymentDeps) {
  const { payments } = deps;
  const reserve = reserveBill(deps);
  const requestIntent = createIntent(deps);
  const attachIntent = createStep(
    "attach-intent",
    ({ payment, intent }: { payment: ExternalPayment; intent: GatewayIntent }) =>
      payments.transaction(async (tx) => {
        const row = await payments.update(tx, payment.draft.id, {
          payment_intent_id: intent.id,
          payment_token: intent.payment_token?.token ?? null,
        });
        await payment.remember(tx, row);
        return row;
      }),
  );

  return createWorkflow("takeExternalPayment", async (payment: ExternalPayment, run) => {
    await run(reserve, payment);
    const intent = await run(requestIntent, payment.draft);
    return run(attachIntent, { payment, intent });
  });
}
