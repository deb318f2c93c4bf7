import {
  AppError,
  type Caller,
  type IdempotencyRequest,
  invalidField,
  logger,
  newUlid,
  partnerIdOf,
  paymentIntentMachine,
} from "@pos-cloud/common";
import { backoffMs } from "../../claims";
import type { Clock } from "../../clock";
import type { PaymentIntent, Prisma, Refund } from "../../generated/prisma/client";
import type { IdempotencyService } from "../idempotency/idempotency.service";
import { appendLedgerEntry, type LedgerEntry } from "../ledger/transaction.repository";
import { appendInternalEvent } from "../outbox/outbox.repository";
import { parseAmount } from "../payment-intents/payment-intent.input";
import { transitionWithin } from "../payment-intents/payment-intent.transition";
import type { ProviderCredentialStore } from "../providers/provider-credentials";
import type { ProviderDirectory } from "../providers/provider-directory";
import { refundMachine } from "./refund.machine";
import type { RefundRepository } from "./refund.repository";

export type RefundService = ReturnType<typeof refundService>;

const MAX_TEXT = 255;
const SWEEP_BATCH = 50;
/** The sweep asks again about a refund the provider could not take after 1, 2, 4 ... minutes, at most 15. */
const MAX_SWEEP_DELAY_MS = 15 * 60_000;

function optionalText(body: Record<string, unknown>, name: string): string | null {
  const value = body[name] ?? null;
  if (value !== null && (typeof value !== "string" || value.length > MAX_TEXT)) {
    throw invalidField(name, "string", `${name} must be a string of at most ${MAX_TEXT} characters`);
  }
  return value;
}

function parseRefundInput(input: unknown) {
  const body = (input && typeof input === "object" && !Array.isArray(input) ? input : {}) as Record<string, unknown>;
  const amount = body.amount === undefined || body.amount === null ? null : parseAmount(body.amount);
  return { amount, reason: optionalText(body, "reason"), merchant_ref_id: optionalText(body, "merchant_ref_id") };
}

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
type WithinRefund = (tx: Prisma.TransactionClient, refund: Refund) => Promise<void>;

const inProgress = () => new AppError("invalid_state", "a refund of this payment intent is in progress");

/** Statuses in which an intent can no longer take a payment (an expired intent is cancelled). */
const CLOSED = ["cancelled", "failed"];
/** The reason of the refund the gateway makes of a late payment by itself. */
const LATE_PAYMENT_REASON = "late_payment";

/** A pending provider refund is first taken by the sweep after this long: its own request has had time to finish. */
const STALE_REFUND_MS = 60_000;

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

const intentAggregate = (intent: PaymentIntent) => ({ type: "payment_intent", id: intent.id });

/**
 * Records a payment that the provider took for an intent that can no longer take it (a late payment): the money in
 * (ledger `paid`), a pending refund of all of it and `late_payment.received`, in the caller's transaction; the
 * intent keeps its status. Once per intent: a closed intent has no other refund, so a refund means another
 * notification or poll recorded this payment already. Null when there is nothing to record.
 */
async function beginLatePaymentRefund(
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
  await appendInternalEvent(
    tx,
    "late_payment.received",
    intentAggregate(intent),
    { payment_intent: intent, refund },
    now,
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
  await appendInternalEvent(tx, event, intentAggregate(intent), { payment_intent: intent, refund }, now);
}

/**
 * Records a refund under a lock on the intent row, so concurrent refunds are checked one after the other and their
 * sum never exceeds the amount. A provider refund leaves the intent in cancelling until `settleRefund`; one without
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
    const remaining = intent.amount - (await refunds.held(tx, intent.id));
    const amount = request.amount ?? remaining;
    if (remaining === 0 || amount > remaining) {
      throw invalidField("amount", "refundable_amount", `at most ${remaining} of ${intent.amount} can be refunded`);
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
const settleRefund = (
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

export function refundService(deps: {
  refunds: RefundRepository;
  idempotency: IdempotencyService;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  clock: Clock;
}) {
  const { refunds, idempotency, providers, credentials, clock } = deps;
  const noRecord = async () => {};

  /**
   * Asks the provider for a pending refund and writes its answer. The refund id is the provider's idempotency key,
   * so asking again returns the refund made the first time instead of refunding twice. An unreachable provider
   * leaves it pending for the next sweep (null); a refusal settles it failed and raises an alert.
   */
  async function askProvider(refund: Refund, intent: PaymentIntent): Promise<Refund | null> {
    if (!intent.provider_name || !intent.provider_transaction_id) return null;
    try {
      const provider = providers.get(intent.provider_name);
      const answer = await provider.refundPayment(
        { provider_transaction_id: intent.provider_transaction_id, amount: refund.amount, idempotency_key: refund.id },
        await credentials.forStore(intent.store_id, provider.name),
      );
      return await settleRefund(refunds, refund, { provider_refund_id: answer.provider_refund_id }, clock(), noRecord);
    } catch (error) {
      if (!(error instanceof AppError) || error.code === "bad_gateway") return null;
      logger.error("the provider refused a refund", {
        alert: "provider_refund_failed",
        refund_id: refund.id,
        payment_intent_id: refund.payment_intent_id,
        code: error.code,
        error: error.message,
      });
      return settleRefund(
        refunds,
        refund,
        { failure_code: error.code, failure_message: error.message },
        clock(),
        noRecord,
      );
    }
  }

  return {
    /** A late payment's refund, begun inside the transaction that records the provider's outcome (provider-events). */
    beginLatePaymentRefund: (tx: Prisma.TransactionClient, payment_intent_id: string, now: Date) =>
      beginLatePaymentRefund(refunds, tx, payment_intent_id, now),
    /**
     * Refunds all or part of a succeeded intent. A QR payment is refunded at its provider (the refund id is the
     * provider's idempotency key, so a retried call cannot refund twice); card and cash refunds happen outside the
     * gateway and are only recorded.
     */
    async refund(caller: Caller, id: string, input: unknown, request?: IdempotencyRequest | null) {
      const client_partner_id = partnerIdOf(caller);
      return idempotency.run<{ refund: Refund }>(client_partner_id, request, async (complete) => {
        const parsed = parseRefundInput(input);
        const found = await refunds.findIntent(id, client_partner_id);
        if (!found) throw new AppError("not_found", "payment intent not found");
        const viaProvider = found.processing_mode === "pgw_processed" && found.provider_transaction_id !== null;
        // Credentials first: a store without its provider configuration changes nothing.
        const provider = viaProvider ? providers.get(found.provider_name!) : null;
        const storeCredentials = provider ? await credentials.forStore(found.store_id, provider.name) : null;
        const keep = (tx: Parameters<typeof complete>[0], refund: Refund) => complete(tx, { refund });
        const { refund, intent } = await beginRefund(
          refunds,
          { payment_intent_id: id, client_partner_id, ...parsed, viaProvider },
          clock(),
          keep,
        );
        if (!provider || !storeCredentials) return { refund };
        try {
          const answer = await provider.refundPayment(
            {
              provider_transaction_id: intent.provider_transaction_id!,
              amount: refund.amount,
              idempotency_key: refund.id,
            },
            storeCredentials,
          );
          return {
            refund: await settleRefund(
              refunds,
              refund,
              { provider_refund_id: answer.provider_refund_id },
              clock(),
              keep,
            ),
          };
        } catch (error) {
          const failure = error instanceof AppError ? error : new AppError("bad_gateway", "the provider refund failed");
          await settleRefund(
            refunds,
            refund,
            { failure_code: failure.code, failure_message: failure.message },
            clock(),
            noRecord,
          );
          throw failure;
        }
      });
    },
    /**
     * Settles provider refunds whose request died between the provider call and its answer being written, which
     * would leave the intent in cancelling, and late payments' refunds the provider could not take at once. Each
     * instance claims its refunds, so none is asked about twice at once; one still unsettled is pushed back.
     */
    async resumePending(): Promise<number> {
      let settled = 0;
      for (const refund of await refunds.claimPending(clock(), SWEEP_BATCH)) {
        const intent = await refunds.findIntentById(refund.payment_intent_id);
        if (intent && (await askProvider(refund, intent))) {
          settled++;
          continue;
        }
        const attempts = refund.poll_attempts + 1;
        const delay = backoffMs(attempts, STALE_REFUND_MS, MAX_SWEEP_DELAY_MS);
        await refunds.retryLater(refund.id, attempts, new Date(clock().getTime() + delay));
      }
      return settled;
    },
    /**
     * Gives back at the provider a payment recorded for an intent that could no longer take it (a late payment),
     * with an alert: money moved that the merchant did not expect, and someone should know.
     */
    async refundLatePayment(payment_intent_id: string) {
      const intent = await refunds.findIntentById(payment_intent_id);
      if (!intent) return;
      for (const refund of await refunds.listForIntent(payment_intent_id)) {
        if (refund.status !== "pending") continue;
        logger.error("a payment reached an intent that can no longer take it: refunding it at the provider", {
          alert: "late_payment",
          payment_intent_id,
          status: intent.status,
          provider: intent.provider_name,
          provider_transaction_id: intent.provider_transaction_id,
          refund_id: refund.id,
          amount: refund.amount,
          currency: refund.currency,
        });
        await askProvider(refund, intent);
      }
    },
    async listForIntent(caller: Caller, id: string) {
      const found = await refunds.findIntent(id, partnerIdOf(caller));
      if (!found) throw new AppError("not_found", "payment intent not found");
      return refunds.listForIntent(id);
    },
  };
}
