import { AppError, createStep, createWorkflow, logger } from "@pos-cloud/common";
import type { GatewayIntent } from "../gateway.client";
import { paymentMachine } from "../payment.machine";
import type { PaymentRow } from "../payment.repository";
import { auditPayment } from "../payment-audit.repository";
import { applyToBill, type PaymentDeps } from "./payment-flow";

/** An intent's state as an event or a retrieve tells it; `eventId` when it came as a gateway event (applied once). */
export interface IntentOutcome {
  intent: Pick<GatewayIntent, "id" | "status" | "failure_code" | "failure_message">;
  eventId?: string;
}

/**
 * Settles a card or QR payment from its intent's state, once: the payment moves only while in flight, and a gateway
 * event is recorded as applied in the same transaction. An intent that failed or was cancelled (expired at the
 * gateway too) fails its payment, which frees its bill. A QR intent that succeeded completes its payment and applies
 * the money to the bill; a bill that can no longer take it (paid meanwhile) has the money refunded at the gateway.
 * A card payment completes only by the card app's result, which carries its approval.
 */
export function settleQrPayment(deps: PaymentDeps) {
  const { payments, gateway, receipts, clock } = deps;
  /** The payment the bill refused, whose money goes back; null when there is none. */
  const recordOutcome = createStep("record-intent-outcome", ({ intent, eventId }: IntentOutcome) =>
    payments.transaction(async (tx): Promise<PaymentRow | null> => {
      const payment = await payments.findByIntent(tx, intent.id);
      if (!payment || payment.method_type === "CASH") return null;
      if (eventId && !(await payments.firstDelivery(tx, eventId))) return null;
      if (intent.status === "failed" || intent.status === "cancelled") {
        const failed = await payments.settle(tx, payment.id, "fail", {
          failure_code: intent.failure_code ?? intent.status,
          failure_message: intent.failure_message,
        });
        if (failed && payment.card_document_number !== null) {
          logger.error("a payment the terminal approved lost its intent before the capture; return its money", {
            payment_id: payment.id,
            payment_intent_id: intent.id,
          });
        }
        return null;
      }
      if (intent.status !== "succeeded" || payment.method_type !== "QR") return null;
      await payments.lockBillPayments(tx, payment.bill_id);
      if (!(await payments.settle(tx, payment.id, "complete", { completed_at: clock() }))) return null;
      await auditPayment(tx, "payment.completed", null, payment, clock(), { payment_intent_id: intent.id });
      try {
        await applyToBill(deps, tx, payment);
        await receipts.issue(tx, payment.id);
        return null;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        await payments.update(tx, payment.id, {
          status: paymentMachine.transition("completed", "bill_refused"),
          completed_at: null,
          failure_code: "bill_not_payable",
          failure_message: error.message,
        });
        return payment;
      }
    }),
  );
  const refundRefused = createStep(
    "refund-refused-payment",
    async ({ payment, intentId }: { payment: PaymentRow; intentId: string }) => {
      logger.error("a QR payment reached a bill that could not take it; refunding", { payment_id: payment.id });
      await gateway.refund(intentId, payment.total_amount, "the bill was no longer payable", `pos-undo-${payment.id}`);
    },
  );

  return createWorkflow("settleQrPayment", async (outcome: IntentOutcome, run) => {
    const refused = await run(recordOutcome, outcome);
    if (refused) await run(refundRefused, { payment: refused, intentId: outcome.intent.id });
  });
}
