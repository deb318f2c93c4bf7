import { AppError, logger } from "@pos-cloud/common";
import { gatewayMayRetry } from "../gateway.client";
import type { PaymentRow } from "../payment.repository";
import { approvalOf, captureKey, completeCapturedCard } from "./complete-card-payment";
import type { PaymentDeps } from "./payment-flow";
import { failPayment } from "./payment-steps";
import { RECOVERY_BATCH } from "./recover-interrupted-payments";

type ApprovedCard = PaymentRow & { payment_intent_id: string };

/**
 * Captures one approved card payment and completes it as the card app's PATCH would have. A capture the gateway
 * refuses for good (the intent expired or was cancelled) fails the payment, keeping its approval, and is logged as
 * an error: the acquirer took money no intent records, which a person must return. Null when the gateway did not
 * settle the capture (throttled, down): the payment waits for the next pass. No row lock is held across the call:
 * the capture's key and the conditional settle make a concurrent PATCH or pass harmless.
 */
async function captureApproved(deps: PaymentDeps, fail: ReturnType<typeof failPayment>, payment: ApprovedCard) {
  try {
    await deps.gateway.capture(payment.payment_intent_id, payment, captureKey(payment.id));
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const fields = { payment_id: payment.id, payment_intent_id: payment.payment_intent_id, error: error.message };
    if (gatewayMayRetry(error)) {
      logger.warn("an approved card payment is still not captured: the gateway did not take the capture", fields);
      return null;
    }
    logger.error("the gateway refused the capture of a card payment the acquirer approved; return its money", fields);
    const failure_message = `the card was approved but the gateway refused its capture: ${error.message}`;
    return fail.invoke({ id: payment.id, failure_code: "capture_refused", failure_message });
  }
  return deps.payments.transaction((tx) => completeCapturedCard(deps)(tx, payment, approvalOf(payment), null));
}

/**
 * The recovery pass of card payments the card app approved but whose capture the gateway did not take (a 429 while
 * the merchant's rate limit was spent, a gateway that did not answer, a crash between the steps of
 * `completeCardPayment`): noted before `before` and still pending, captured again under the same key, so the
 * gateway captures once. Stops at the first capture the gateway does not settle. Returns the ids of the payments it
 * settled.
 */
export function captureApprovedCards(deps: PaymentDeps) {
  const fail = failPayment(deps);
  return async (before: Date) => {
    const settled: string[] = [];
    for (const payment of await deps.payments.approvedUncaptured(before, RECOVERY_BATCH)) {
      if (!payment.payment_intent_id) continue;
      const done = await captureApproved(deps, fail, { ...payment, payment_intent_id: payment.payment_intent_id });
      if (done === null) break;
      if (done) settled.push(payment.id);
    }
    return settled;
  };
}
