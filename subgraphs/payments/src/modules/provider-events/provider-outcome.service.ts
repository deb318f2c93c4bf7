import { AppError, eventRow, logger } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PaymentIntent, Prisma } from "../../generated/prisma/client";
import { appendEvent } from "../outbox/outbox.repository";
import { transitionWithin } from "../payment-intents/payment-intent-transition.repository";
import type { ProviderCredentialStore, ProviderDirectory, ProviderNotification, ProviderPayment } from "../providers";
import type { RefundService } from "../refunds";
import type { OutcomeResult, ProviderEventRepository } from "./provider-event.repository";
import { mismatchOf, outcomeTransition, type ProviderOutcome } from "./provider-outcome.rules";

export type ProviderOutcomeService = ReturnType<typeof providerOutcomeService>;

/** What a provider's word did; `rejected` when it does not match its intent, which it leaves as it was. */
export type Applied = { result: OutcomeResult } | { result: "rejected"; reason: string };

interface ProviderOutcomeDeps {
  events: ProviderEventRepository;
  refunds: RefundService;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  clock: Clock;
}

/** A provider's word about a payment, notified or polled, applied to its intent when it matches. */
function outcomeApplication({ events, refunds, clock }: ProviderOutcomeDeps) {
  /**
   * Moves the intent as the provider says, the same for a webhook and a poll, in the caller's transaction. A payment
   * for an intent already closed (cancelled, expired, failed) is not dropped as stale: it is recorded for a refund.
   */
  async function applyOutcome(
    tx: Prisma.TransactionClient,
    payment_intent_id: string,
    outcome: ProviderOutcome,
    now: Date,
  ): Promise<OutcomeResult> {
    const transition = outcomeTransition(outcome, now);
    if (!transition) return "pending";
    if (await transitionWithin(tx, payment_intent_id, transition.event, transition.change, now)) return "applied";
    if (outcome.status === "succeeded" && (await refunds.beginLatePaymentRefund(tx, payment_intent_id, now)))
      return "late_payment";
    return "stale";
  }

  /**
   * Applies a notification about `intent` in one transaction: its event id claimed (a second delivery finds it and
   * changes nothing), `provider_webhook.received` recorded, and the intent moved with its event and ledger row.
   */
  const recordNotification = (intent: PaymentIntent, notification: ProviderNotification, now: Date) =>
    events.transaction(async (tx): Promise<OutcomeResult> => {
      const { provider, event_id, provider_transaction_id } = notification;
      if (!(await events.claimEvent(tx, notification, now))) return "duplicate";
      const provider_webhook = { ...notification, payment_intent_id: intent.id };
      await appendEvent(
        tx,
        eventRow(
          "provider_webhook.received",
          `${provider}:${event_id}`,
          { provider_webhook, metadata: { occurred_at: now } },
          now,
        ),
      );
      // A QR the intent no longer has (a cancelled attempt's) moves nothing.
      const result =
        intent.provider_transaction_id === provider_transaction_id
          ? await applyOutcome(tx, intent.id, notification, now)
          : "stale";
      await events.markEvent(tx, provider, event_id, result);
      return result;
    });

  async function refundIfLate(intent: PaymentIntent, result: OutcomeResult): Promise<Applied> {
    if (result === "late_payment") await refunds.refundLatePayment(intent.id);
    return { result };
  }

  /** A provider's status of a payment the gateway asked for; a mismatch raises an alert (there is no letter). */
  async function applyPolled(intent: PaymentIntent, payment: ProviderPayment): Promise<Applied> {
    const reason = mismatchOf(intent, payment);
    if (reason) {
      logger.error("a provider's payment does not match its intent: not applied", {
        alert: "provider_payment_mismatch",
        payment_intent_id: intent.id,
        provider: intent.provider_name,
        provider_transaction_id: payment.provider_transaction_id,
        reason,
      });
      return { result: "rejected", reason };
    }
    const now = clock();
    return refundIfLate(intent, await events.transaction((tx) => applyOutcome(tx, intent.id, payment, now)));
  }

  return {
    /** A notification whose signature and age checked out; no intent for its transaction throws (to be retried). */
    async applyNotification(notification: ProviderNotification): Promise<Applied> {
      const intent = await events.findIntent(notification.provider, notification.provider_transaction_id);
      const reason = mismatchOf(intent, notification);
      if (reason) return { result: "rejected", reason };
      return refundIfLate(intent, await recordNotification(intent, notification, clock()));
    },

    applyPolled,
  };
}

/** Asks the provider to cancel an intent's QR; a payment that moved on instead is applied with `applyPolled`. */
function providerCancellation(
  { events, providers, credentials }: ProviderOutcomeDeps,
  applyPolled: (intent: PaymentIntent, payment: ProviderPayment) => Promise<Applied>,
) {
  return {
    /**
     * Cancels an intent's QR at its provider before the intent is cancelled, since only the provider knows whether
     * the customer paid. A payment that moved on (paid, processing, failed) is applied as a poll would be and the
     * cancel is refused with 409; a provider that cannot be asked, or does not cancel, is 502 with the intent
     * unchanged, so the caller retries (fail closed: a cancelled intent must not have a payable QR).
     */
    async cancelAtProvider(intent: PaymentIntent): Promise<void> {
      const transaction = intent.provider_transaction_id!;
      const notCancelled = (error?: unknown) =>
        new AppError("bad_gateway", `the ${intent.provider_name} provider did not cancel the QR; try again`, {
          provider: intent.provider_name,
          provider_error: error instanceof AppError ? error.code : null,
        });
      let payment: ProviderPayment;
      try {
        const provider = providers.get(intent.provider_name!);
        const storeCredentials = await credentials.forStore(intent.store_id, provider.name);
        payment = await provider.cancelPayment(transaction, storeCredentials).catch((error: unknown) => {
          // A provider refuses to cancel a payment that moved on; its status says where it went.
          if (error instanceof AppError && error.code === "invalid_state") {
            return provider.getPaymentStatus(transaction, storeCredentials);
          }
          throw error;
        });
      } catch (error) {
        throw notCancelled(error);
      }
      if (payment.status === "cancelled") return;
      if (payment.status === "pending") throw notCancelled();
      await applyPolled(intent, payment);
      const now = await events.findIntent(intent.provider_name!, transaction);
      throw new AppError(
        "invalid_state",
        `the provider reports the payment ${payment.status}: it cannot be cancelled`,
        {
          status: now.status,
          provider_status: payment.status,
        },
      );
    },
  };
}

/**
 * Applies what providers say about payments (notifications, polls, the answer to a cancel) to their intents: only
 * when amount and currency match the intent, and a payment that reaches an intent already closed is refunded.
 */
export function providerOutcomeService(deps: ProviderOutcomeDeps) {
  const outcomes = outcomeApplication(deps);
  return { ...outcomes, ...providerCancellation(deps, outcomes.applyPolled) };
}
