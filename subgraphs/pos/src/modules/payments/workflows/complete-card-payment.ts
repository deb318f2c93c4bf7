import { AppError, type Caller, createStep, createWorkflow } from "@pos-cloud/common";
import type { CardResult } from "../payment.inputs";
import type { CardApproval, NotedApproval, PaymentRow, Tx } from "../payment.repository";
import { auditPayment } from "../payment-audit.repository";
import { applyToBill, type PaymentDeps } from "./payment-flow";
import { cancelIntent, failPayment } from "./payment-steps";

/** A card payment in flight with its intent, and the card app's result for it. */
export interface CardOutcome {
  payment: PaymentRow & { payment_intent_id: string };
  result: CardResult;
  /** Who reports the result: the audit record's actor. */
  actor: Caller;
}

/** The result as the workflow's steps take it: the payment with the tip added on the slip, and as it was before. */
interface TippedOutcome extends CardOutcome {
  before: PaymentRow;
}

const settledMeanwhile = () => new AppError("invalid_state", "the payment was settled meanwhile");

/** The gateway's Idempotency-Key of a card payment's capture: a retry or the recovery pass captures once. */
export const captureKey = (paymentId: string) => `pos-capture-${paymentId}`;

/** The approval as the payment row keeps it, from the card app's result or from the row itself. */
export const approvalOf = (result: CardApproval | CardResult): CardApproval => ({
  approval_code: result.approval_code ?? null,
  card_document_number: result.card_document_number ?? null,
  card_last_4: result.card_last_4 ?? null,
  card_brand: result.card_brand ?? null,
  card_arn: result.card_arn ?? null,
});

/**
 * The payment as its capture takes it: a tip added on the slip (`added_tip_amount`) rides on top of the authorised
 * total, replacing one a retried result noted before, so a PATCH sent twice adds it once.
 */
const withAddedTip = (payment: CardOutcome["payment"], added: number): CardOutcome["payment"] => ({
  ...payment,
  added_tip_amount: added,
  tip_amount: payment.tip_amount - payment.added_tip_amount + added,
  total_amount: payment.total_amount - payment.added_tip_amount + added,
});

/** What is noted before the capture: the approval and the tip amounts (by default, what the row holds). */
const notedOf = (payment: PaymentRow, approval: CardApproval = approvalOf(payment)): NotedApproval => ({
  ...approval,
  added_tip_amount: payment.added_tip_amount,
  tip_amount: payment.tip_amount,
  total_amount: payment.total_amount,
});

/** The gateway refused the capture's amount: the tip is above the store's ceiling (`refusal` in gateway.client.ts). */
const tipRefused = (error: unknown) =>
  error instanceof AppError && (error.details as { field?: string } | undefined)?.field === "added_tip_amount";

/**
 * Completes a captured card payment in `tx` with its approval, applies its money to the bill and issues its receipt;
 * false when another request settled it first. `actor` null: the platform's recovery pass.
 */
export function completeCapturedCard(deps: PaymentDeps) {
  const { payments, receipts, clock } = deps;
  return async (tx: Tx, payment: PaymentRow, approval: CardApproval, actor: Caller | null) => {
    await payments.lockBillPayments(tx, payment.bill_id);
    if (!(await payments.settle(tx, payment.id, "complete", { completed_at: clock(), ...approval }))) return false;
    await auditPayment(tx, "payment.completed", actor, payment, clock(), { approval_code: approval.approval_code });
    await applyToBill(deps, tx, payment);
    await receipts.issue(tx, payment.id);
    return true;
  };
}

/**
 * The card app approved: the approval is noted on the payment first (the acquirer has taken the money, so it must
 * outlive a capture the gateway refuses or never answers), then the intent is captured outside any transaction (the
 * gateway's key answers a retry with the first capture), then the payment completes and its money is applied to the
 * bill, with its receipt. A capture that fails leaves the payment pending with its approval, for the PATCH to be
 * retried or the recovery pass to capture it (`captureApprovedCards`). A recording that fails after the capture
 * gives the capture back (`pos-undo-<payment id>`) only when a concurrent result failed the payment, since nothing
 * will ever complete it.
 */
export function completeCardPayment(deps: PaymentDeps) {
  const { payments, gateway } = deps;
  const complete = completeCapturedCard(deps);
  // A tip the gateway refuses takes back what was noted, so the refused PATCH leaves the payment as it found it (and
  // the recovery pass does not capture it): the terminal sends its result again with a tip the store allows.
  const noteApproval = createStep(
    "note-approval",
    ({ payment, result }: TippedOutcome) =>
      payments.transaction(async (tx) => {
        if (!(await payments.noteApproval(tx, payment.id, notedOf(payment, approvalOf(result)))))
          throw settledMeanwhile();
      }),
    async (_, { before }, failure) => {
      if (tipRefused(failure.error))
        await payments.transaction((tx) => payments.noteApproval(tx, before.id, notedOf(before)));
    },
  );
  const captureIntent = createStep(
    "capture-intent",
    ({ payment }: CardOutcome) => gateway.capture(payment.payment_intent_id, payment, captureKey(payment.id)),
    async (_, { payment }) => {
      if ((await payments.find(payment.id))?.status !== "failed") return;
      await gateway.refund(
        payment.payment_intent_id,
        payment.total_amount,
        "the card payment failed meanwhile",
        `pos-undo-${payment.id}`,
      );
    },
  );
  const recordApproval = createStep("record-approval", ({ payment, result, actor }: CardOutcome) =>
    payments.transaction(async (tx) => {
      if (!(await complete(tx, payment, approvalOf(result), actor))) throw settledMeanwhile();
    }),
  );

  return createWorkflow("completeCardPayment", async (outcome: CardOutcome, run) => {
    const added = outcome.result.added_tip_amount ?? 0;
    const tipped = { ...outcome, payment: withAddedTip(outcome.payment, added), before: outcome.payment };
    await run(noteApproval, tipped);
    await run(captureIntent, tipped);
    await run(recordApproval, tipped);
  });
}

/** The card app declined, failed or was cancelled: the payment fails, then its intent is cancelled (best effort). */
export function failCardPayment(deps: PaymentDeps) {
  const fail = failPayment(deps);
  const cancel = cancelIntent(deps);

  return createWorkflow("failCardPayment", async ({ payment, result }: CardOutcome, run) => {
    const failure_message = result.error_message ?? `the card app reported ${result.status}`;
    if (!(await run(fail, { id: payment.id, failure_code: result.status, failure_message }))) throw settledMeanwhile();
    await run(cancel, { id: payment.payment_intent_id, token: payment.payment_token }).catch(() => undefined);
  });
}
