import { AppError, type Caller, createStep, createWorkflow } from "@pos-cloud/common";
import type { CardResult } from "../payment.inputs";
import type { PaymentRow } from "../payment.repository";
import { auditPayment } from "../payment-audit";
import { applyToBill, type PaymentDeps } from "./payment-flow";

/** A card payment in flight with its intent, and the card app's result for it. */
export interface CardOutcome {
  payment: PaymentRow & { payment_intent_id: string };
  result: CardResult;
  /** Who reports the result: the audit record's actor. */
  actor: Caller;
}

const settledMeanwhile = () => new AppError("invalid_state", "the payment was settled meanwhile");

/**
 * The card app approved: the intent is captured first, outside any transaction (the gateway's key answers a retry
 * with the first capture), then the payment completes and its money is applied to the bill, with its receipt. A
 * recording that fails leaves the payment pending for the PATCH to be retried, except when a concurrent result failed
 * it: then the capture is given back (`pos-undo-<payment id>`), since nothing will ever complete it.
 */
export function completeCardPayment(deps: PaymentDeps) {
  const { payments, gateway, receipts, clock } = deps;
  const captureIntent = createStep(
    "capture-intent",
    ({ payment }: CardOutcome) =>
      gateway.capture(payment.payment_intent_id, payment.amount, `pos-capture-${payment.id}`),
    async (_, { payment }) => {
      if ((await payments.find(payment.id))?.status !== "failed") return;
      await gateway.refund(
        payment.payment_intent_id,
        payment.amount,
        "the card payment failed meanwhile",
        `pos-undo-${payment.id}`,
      );
    },
  );
  const recordApproval = createStep("record-approval", ({ payment, result, actor }: CardOutcome) =>
    payments.transaction(async (tx) => {
      await payments.lockBillPayments(tx, payment.bill_id);
      const moved = await payments.settle(tx, payment.id, "complete", {
        completed_at: clock(),
        approval_code: result.approval_code,
        card_document_number: result.card_document_number,
        card_last_4: result.card_last_4,
        card_brand: result.card_brand,
        card_arn: result.card_arn,
      });
      if (!moved) throw settledMeanwhile();
      await auditPayment(tx, "payment.completed", actor, payment, clock(), { approval_code: result.approval_code });
      await applyToBill(deps, tx, payment);
      await receipts.issue(tx, payment.id);
    }),
  );

  return createWorkflow("completeCardPayment", async (outcome: CardOutcome, run) => {
    await run(captureIntent, outcome);
    await run(recordApproval, outcome);
  });
}

/** The card app declined, failed or was cancelled: the payment fails, then its intent is cancelled (best effort). */
export function failCardPayment(deps: PaymentDeps) {
  const { payments, gateway } = deps;
  const failPayment = createStep("fail-payment", async ({ payment, result }: CardOutcome) => {
    const failed = await payments.transaction((tx) =>
      payments.settle(tx, payment.id, "fail", {
        failure_code: result.status,
        failure_message: result.error_message ?? `the card app reported ${result.status}`,
      }),
    );
    if (!failed) throw settledMeanwhile();
  });
  const cancelIntent = createStep("cancel-intent", async ({ payment }: CardOutcome) => {
    if (payment.payment_token)
      await gateway.cancel(payment.payment_intent_id, payment.payment_token).catch(() => undefined);
  });

  return createWorkflow("failCardPayment", async (outcome: CardOutcome, run) => {
    await run(failPayment, outcome);
    await run(cancelIntent, outcome);
  });
}
