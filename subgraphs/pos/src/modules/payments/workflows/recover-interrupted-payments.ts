import { AppError, createStep, createWorkflow, logger, networkCallKeptWithRows } from "@pos-cloud/common";
import { type GatewayIntent, gatewayMayRetry } from "../gateway.client";
import type { PaymentRow, Tx } from "../payment.repository";
import { GATEWAY_CALLS_IN_TRANSACTION, intentBody, intentKey, type PaymentDeps } from "./payment-flow";

/** A card or QR payment still without its intent this long after it was taken was interrupted. */
export const STALE_AFTER_MS = 2 * 60 * 1000;
/** At most this many interrupted payments per recovery pass. */
export const RECOVERY_BATCH = 50;

const INTERRUPTED = "interrupted before the intent was recorded";

/**
 * Finishes one card or QR payment that a crash left pending without its intent, under its row lock (`tx`): the
 * intent is asked for again with the same body and key (the gateway replays it, or makes it now), cancelled, and the
 * payment failed, which frees its bill. False when the gateway does not answer: the payment waits for the next pass.
 */
function recoverInterruptedPayment(deps: PaymentDeps) {
  const { payments, gateway } = deps;
  // Under the payment's row lock: the claim that keeps other processes off it.
  const replayIntent = createStep("replay-intent", (payment: PaymentRow) =>
    networkCallKeptWithRows(GATEWAY_CALLS_IN_TRANSACTION, () =>
      gateway.createIntent(intentBody(payment), intentKey(payment.id)),
    ),
  );
  const cancelIntent = createStep("cancel-intent", async (intent: GatewayIntent) => {
    const token = intent.payment_token?.token;
    if (token) await networkCallKeptWithRows(GATEWAY_CALLS_IN_TRANSACTION, () => gateway.cancel(intent.id, token));
  });
  const failPayment = createStep(
    "fail-payment",
    ({ tx, payment, failure_message }: { tx: Tx; payment: PaymentRow; failure_message: string }) =>
      payments.settle(tx, payment.id, "fail", { failure_code: "gateway_error", failure_message }),
  );

  return createWorkflow("recoverInterruptedPayment", async ({ tx, payment }: { tx: Tx; payment: PaymentRow }, run) => {
    let failure_message = `${INTERRUPTED}; cancelled by recovery`;
    try {
      await run(cancelIntent, await run(replayIntent, payment));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const fields = { payment_id: payment.id, error: error.message };
      if (gatewayMayRetry(error)) {
        logger.warn("recovery left an interrupted payment pending: the gateway did not answer", fields);
        return false;
      }
      // A refusal (the token expired, the intent was cancelled already) still ends the payment: no terminal ever had
      // the intent, so nobody can pay it, and the gateway expires it.
      logger.warn("the gateway refused an interrupted payment's recovery; failing it", fields);
      failure_message = `${INTERRUPTED}; the gateway refused its recovery: ${error.message}`;
    }
    await run(failPayment, { tx, payment, failure_message });
    return true;
  });
}

/**
 * The recovery pass over interrupted payments: card and QR payments still pending without their intent
 * `STALE_AFTER_MS` after they were taken (the process died between the steps of `takeExternalPayment`), one row lock
 * at a time (`FOR UPDATE SKIP LOCKED`, so two processes never handle one). Stops at the first payment the gateway
 * does not answer for. Returns the ids of the payments it failed.
 */
export function recoverInterruptedPayments(deps: PaymentDeps) {
  const recoverOne = recoverInterruptedPayment(deps);
  return async (before: Date) => {
    const recovered: string[] = [];
    for (let handled = 0; handled < RECOVERY_BATCH; handled++) {
      // The gateway is called inside the claim's transaction: its credential is read before it (`gateway.ready`).
      await deps.gateway.ready();
      const done = await deps.payments.transaction(async (tx) => {
        const payment = await deps.payments.claimInterrupted(tx, before);
        if (!payment) return null;
        return (await recoverOne({ tx, payment })) ? payment.id : false;
      });
      if (!done) break;
      recovered.push(done);
    }
    return recovered;
  };
}
