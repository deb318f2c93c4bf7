import { AppError, eventRow, invalidField, newUlid, paymentIntentMachine } from "@pos-cloud/common";
import type { PaymentIntent, Prisma, Refund } from "../../generated/prisma/client";
import { appendLedgerEntry, type LedgerEntry } from "../ledger/transaction.repository";
import { appendEvent } from "../outbox/outbox.repository";
import { transitionWithin } from "../payment-intents/payment-intent-transition.repository";
import { refundMachine } from "./refund.machine";
import type { RefundRepository } from "./refund.repository";

/*
 * The rules that record a refund, each in one transaction the refund service asks for: the amount checked under the
 * intent's lock, the intent's move, the ledger row and the events. The repository only reads and writes rows.
 */

export interface RefundRequest {
  payment_intent_id: string;
  client_partner_id: number;
  /** Null: whatever is left. */
  amount: number | null;
  reason: string | null;
  merchant_ref_id?: string | null;
  /** The provider must be asked (QR): the refund starts pending and the intent goes to cancelling meanwhile. */
  viaProvider: boolean;
}

/** Runs in the transaction that settles a refund (the idempotency record). */
export type WithinRefund = (tx: Prisma.TransactionClient, refund: Refund) => Promise<void>;

const inProgress = () => new AppError("invalid_state", "a refund of this payment intent is in progress");

/** Statuses in which an intent can no longer take a payment (an expired intent is cancelled). */
const CLOSED = ["cancelled", "failed"];
/** The reason of the refund the gateway makes of a late payment by itself. */
const LATE_PAYMENT_REASON = "late_payment";

/** A pending provider refund is first taken by the sweep after this long: its own request has had time to finish. */
export const STALE_REFUND_MS = 60_000;

const refundRow = (intent: PaymentIntent, amount: number, reason: string | null, status: string, now: Date) => ({
  id: `re_${newUlid(now.getTime())}`,
  payment_intent_id: intent.id,
  client_partner_id: intent.client_partner_id,
  amount,
  currency: intent.currency,
  reason,
  status,
  created_at: now,
  updated_at: now,
  next_poll_at: new Date(now.getTime() + STALE_REFUND_MS),
});

/**
 * Records a payment that the provider took for an intent that can no longer take it (a late payment): the money in
 * (ledger `paid`), a pending refund of all of it and `late_payment.received`, in the caller's transaction; the
 * intent keeps its status. Once per intent: a closed intent has no other refund, so a refund means another
 * notification or poll recorded this payment already. Null when there is nothing to record.
 */
export async function beginLatePaymentRefund(
  refunds: RefundRepository,
  tx: Prisma.TransactionClient,
  payment_intent_id: string,
  now: Date,
): Promise<Refund | null> {
  await refunds.lockIntent(tx, payment_intent_id);
  const intent = await refunds.intentIn(tx, payment_intent_id);
  if (!CLOSED.includes(intent.status) || (await refunds.countForIntent(tx, payment_intent_id)) > 0) return null;
  const refund = await refunds.create(tx, refundRow(intent, intent.amount, LATE_PAYMENT_REASON, "pending", now));
  await appendLedgerEntry(
    tx,
    intent,
    { type: "paid", status: "succeeded", amount: intent.amount, refund_id: refund.id },
    now,
  );
  const metadata = { occurred_at: now };
  await appendEvent(
    tx,
    eventRow("late_payment.received", intent.id, { payment_intent: intent, refund, metadata }, now),
  );
  return refund;
}

/**
 * The ledger row of a refund just settled, with the intent's return from cancelling to succeeded; a late payment's
 * refund leaves its closed intent as it is, so its row comes with an internal event instead of a transition.
 */
async function recordSettlement(refunds: RefundRepository, tx: Prisma.TransactionClient, refund: Refund, now: Date) {
  const moved = { amount: refund.amount, refund_id: refund.id };
  const entry: LedgerEntry =
    refund.status === "succeeded"
      ? { ...moved, type: "refunded", status: "succeeded", provider_refund_id: refund.provider_refund_id }
      : {
          ...moved,
          type: "refund_failed",
          status: "failed",
          failure_code: refund.failure_code,
          failure_message: refund.failure_message,
        };
  const resumed = await transitionWithin(tx, refund.payment_intent_id, "refund_settled", {}, now, { ledger: entry });
  if (resumed) return;
  const intent = await refunds.intentIn(tx, refund.payment_intent_id);
  await appendLedgerEntry(tx, intent, entry, now);
  const event = refund.status === "succeeded" ? "late_payment.refunded" : "late_payment.refund_failed";
  await appendEvent(
    tx,
    eventRow(event, intent.id, { payment_intent: intent, refund, metadata: { occurred_at: now } }, now),
  );
}

/**
 * Records a refund under a lock on the intent row, so concurrent refunds are checked one after the other and their
 * sum never exceeds what the payment took. A provider refund leaves the intent in cancelling until `settleRefund`; one without
 * a provider is final here, with its ledger row. (Tests call it alone for a request that died after it.)
 */
export const beginRefund = (refunds: RefundRepository, request: RefundRequest, now: Date, within: WithinRefund) =>
  refunds.transaction(async (tx): Promise<{ refund: Refund; intent: PaymentIntent }> => {
    await refunds.lockIntent(tx, request.payment_intent_id);
    const intent = await refunds.partnerIntentIn(tx, request.payment_intent_id, request.client_partner_id);
    if (!intent) throw new AppError("not_found", "payment intent not found");
    if (intent.status === "cancelling") throw inProgress();
    // A refund with or without a provider is refused where the machine refuses one through a provider.
    paymentIntentMachine.transition(intent.status, "refund_via_provider");
    // What the payment took: a tip added at capture is refundable, what a partial capture released is not.
    const received = intent.amount_received;
    const remaining = received - (await refunds.held(tx, intent.id));
    const amount = request.amount ?? remaining;
    if (remaining === 0 || amount > remaining) {
      throw invalidField("amount", "refundable_amount", `at most ${remaining} of ${received} can be refunded`);
    }
    // A refund without a provider settles as it is made.
    const status = request.viaProvider ? "pending" : refundMachine.transition("pending", "succeed");
    const refund = await refunds.create(tx, {
      ...refundRow(intent, amount, request.reason, status, now),
      merchant_ref_id: request.merchant_ref_id,
    });
    if (!request.viaProvider) {
      await appendLedgerEntry(tx, intent, { type: "refunded", status: "succeeded", amount, refund_id: refund.id }, now);
      await within(tx, refund);
      return { refund, intent };
    }
    const cancelling = await transitionWithin(tx, intent.id, "refund_via_provider", {}, now, { ledger: null });
    return { refund, intent: cancelling! };
  });

/**
 * The provider's answer: the refund settled, the intent back to succeeded, the ledger row, in one transaction. Only
 * a pending refund is settled, so of two answers to one refund (a slow call and the sweep) one is written.
 */
export const settleRefund = (
  refunds: RefundRepository,
  refund: Refund,
  outcome: { provider_refund_id: string } | { failure_code: string; failure_message: string },
  now: Date,
  within: WithinRefund,
) =>
  refunds.transaction(async (tx) => {
    const event = "provider_refund_id" in outcome ? "succeed" : "fail";
    const settled = await refunds.settle(tx, refund.id, event, { ...outcome, updated_at: now });
    if (settled.moved) await recordSettlement(refunds, tx, settled.refund, now);
    await within(tx, settled.refund);
    return settled.refund;
  });
