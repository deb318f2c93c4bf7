import { intentOfEvent, paymentIntentTerminalEvents } from "@pos-cloud/common";
import type { BusEvent, MessageBus } from "@pos-cloud/common/messaging";
import type { StoreIdempotency } from "../idempotency";
import { inFlight } from "./payment.machine";
import { presentPayment } from "./payment.presenter";
import { captureApprovedCards } from "./workflows/capture-approved-cards";
import type { PaymentDeps } from "./workflows/payment-flow";
import { RECOVERY_BATCH, recoverInterruptedPayments, STALE_AFTER_MS } from "./workflows/recover-interrupted-payments";
import { settleQrPayment } from "./workflows/settle-qr-payment";

/** What finishes payments without a request: the gateway's events, and the recovery pass of interrupted ones. */
export function paymentFollowUp(deps: PaymentDeps, keys: StoreIdempotency) {
  const settle = settleQrPayment(deps);
  const recover = recoverInterruptedPayments(deps);
  const capture = captureApprovedCards(deps);
  return {
    /**
     * The recovery pass: interrupted payments are finished (`recoverInterruptedPayments`: cash completed, card and QR
     * cancelled at the gateway and failed), approved card payments whose capture the gateway did not take are captured
     * and completed (`captureApprovedCards`), then the Idempotency-Keys such deaths left processing are finished or
     * released. Returns the ids of the interrupted payments it ended.
     */
    async recoverStalePayments(now: Date = deps.clock()) {
      const recovered = await recover(now);
      await capture(new Date(now.getTime() - STALE_AFTER_MS));
      await keys.releaseAbandoned(now, RECOVERY_BATCH, inFlight, async (tx, id) => {
        const payment = await deps.payments.find(id, tx);
        return payment && presentPayment(payment);
      });
      return recovered;
    },

    /**
     * Consumes the gateway's internal events: an intent that failed or was cancelled (or expired) fails its card or QR
     * payment; a QR intent that succeeded completes its payment (`settleQrPayment`).
     */
    consume: (bus: MessageBus) =>
      bus.consume("events.internal", "pos-payments", async (event: BusEvent) => {
        if (event.aggregate_type !== "payment_intent" || !paymentIntentTerminalEvents.has(event.event_type)) return;
        const intent = intentOfEvent(event);
        if (intent) await settle({ intent, eventId: event.id });
      }),
  };
}
