import { AppError, createWorkflow, logger } from "@pos-cloud/common";
import { gatewayMayRetry } from "../gateway.client";
import type { PaymentRow } from "../payment.repository";
import type { PaymentDeps } from "./payment-flow";
import { cancelIntent, completeCashPayment, createIntent, failPayment } from "./payment-steps";

/** A payment still pending without its intent this long after it was taken was interrupted. */
export const STALE_AFTER_MS = 2 * 60 * 1000;
/** At most this many interrupted payments per recovery pass. */
export const RECOVERY_BATCH = 50;
/**
 * How long one process keeps an interrupted payment to itself: longer than its gateway calls may take (the client's
 * 10 s timeout each), so a lease ends only once its holder died.
 */
export const RECOVERY_LEASE_MS = 60_000;

const INTERRUPTED = "interrupted before the intent was recorded";

/**
 * Finishes one payment that a crash left pending without its intent, holding its lease, with no transaction open
 * while the gateway is called. The intent is asked for again with the same body and key (the gateway replays it, or
 * makes it now). A cash payment then completes with it: the cash changed hands, and its request may have died after
 * the gateway recorded it. A card or QR payment's intent is cancelled, and the payment failed, which frees its bill:
 * no terminal ever had the intent. False when the gateway does not answer: the payment waits for the next pass.
 */
function recoverInterruptedPayment(deps: PaymentDeps) {
  const replayIntent = createIntent(deps);
  const completeCash = completeCashPayment(deps);
  const cancel = cancelIntent(deps);
  const fail = failPayment(deps);

  return createWorkflow("recoverInterruptedPayment", async (payment: PaymentRow, run) => {
    let failure_message = `${INTERRUPTED}; cancelled by recovery`;
    try {
      const intent = await run(replayIntent, payment);
      if (payment.method_type === "CASH") {
        await run(completeCash, { payment, intent, actor: null });
        return true;
      }
      await run(cancel, { id: intent.id, token: intent.payment_token?.token });
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
    await run(fail, { id: payment.id, failure_code: "gateway_error", failure_message });
    return true;
  });
}

/**
 * The recovery pass over interrupted payments: payments still pending without their intent `STALE_AFTER_MS` after
 * they were taken (the process died between the steps of `takeExternalPayment` or `takeCashPayment`), one at a time
 * under a lease (`claimInterrupted`, so two processes never handle one). Stops at the first payment the gateway does
 * not answer for. Returns the ids of the payments it ended, completed (cash) or failed.
 */
export function recoverInterruptedPayments(deps: PaymentDeps) {
  const recoverOne = recoverInterruptedPayment(deps);
  return async (now: Date) => {
    const before = new Date(now.getTime() - STALE_AFTER_MS);
    const until = new Date(now.getTime() + RECOVERY_LEASE_MS);
    const recovered: string[] = [];
    for (let handled = 0; handled < RECOVERY_BATCH; handled++) {
      const payment = await deps.payments.transaction((tx) => deps.payments.claimInterrupted(tx, before, now, until));
      if (!payment || !(await recoverOne(payment))) break;
      recovered.push(payment.id);
    }
    return recovered;
  };
}
