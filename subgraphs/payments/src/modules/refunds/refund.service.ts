import {
  AppError,
  type Caller,
  createWorkflow,
  type IdempotencyRequest,
  invalidField,
  keyReachesStore,
  logger,
  partnerIdOf,
} from "@pos-cloud/common";
import { countOutcome, type NextAttempt, nextAttempt, retryPolicies } from "@pos-cloud/common/tasks";
import type { Clock } from "../../clock";
import type { PaymentIntent, Prisma, Refund } from "../../generated/prisma/client";
import type { IdempotencyService } from "../idempotency";
import type { StoreResolver } from "../partners";
import { parseAmount } from "../payment-intents";
import type { PaymentProvider, ProviderCredentialStore, ProviderCredentials, ProviderDirectory } from "../providers";
import type { RefundRepository } from "./refund.repository";
import { beginLatePaymentRefund, type RefundRequest, type WithinRefund } from "./refund-recording.service";
import { noRecord, type RefundSteps, refundSteps } from "./workflows/refund-steps";

export type RefundService = ReturnType<typeof refundService>;

const MAX_TEXT = 255;
const SWEEP_BATCH = 50;
/** The sweep asks again about a refund the provider could not take after 1, 2, 4 ... minutes, at most 15. */

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

interface RefundDeps {
  refunds: RefundRepository;
  idempotency: IdempotencyService;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  stores: StoreResolver;
  clock: Clock;
}

/**
 * Asks the provider for a pending refund and writes its answer (`refund-at-provider`). An unreachable provider
 * leaves it pending for the next sweep (null); a refusal settles it failed and raises an alert.
 */
async function askProvider(deps: RefundDeps, steps: RefundSteps, refund: Refund, intent: PaymentIntent) {
  const { providers, credentials } = deps;
  if (!intent.provider_name || !intent.provider_transaction_id) return null;
  try {
    const provider = providers.get(intent.provider_name);
    const storeCredentials = await credentials.forStore(intent.store_id, provider.name);
    return await steps.refundAtProvider.invoke({
      refund,
      intent,
      provider,
      credentials: storeCredentials,
      within: noRecord,
    });
  } catch (error) {
    if (!(error instanceof AppError) || error.code === "bad_gateway") return null;
    logger.error("the provider refused a refund", {
      alert: "provider_refund_failed",
      refund_id: refund.id,
      payment_intent_id: refund.payment_intent_id,
      code: error.code,
      error: error.message,
    });
    return steps.failRefund.invoke({ refund, failure: error });
  }
}

/** A partner's refund as its workflow runs it: what was asked, the provider to ask if any, the key's record. */
interface PartnerRefund {
  request: RefundRequest;
  provider: PaymentProvider | null;
  credentials: ProviderCredentials | null;
  keep: WithinRefund;
}

/**
 * The partner's refund (`refundPaymentIntent`): recorded (`record-refund`), then, for a QR payment, refunded at the
 * provider (`refund-at-provider`); a provider that fails has the refund settled failed (the compensation of
 * `record-refund`) and its error thrown. The key's record (`keep`) is written with the refund that settles.
 */
const refundWorkflow = ({ clock }: RefundDeps, steps: RefundSteps) =>
  createWorkflow("refundPaymentIntent", async ({ request, provider, credentials, keep }: PartnerRefund, run) => {
    const { refund, intent } = await run(steps.recordRefund, { request, at: clock(), within: keep });
    if (!provider || !credentials) return { refund };
    return { refund: await run(steps.refundAtProvider, { refund, intent, provider, credentials, within: keep }) };
  });

/** The refunds a partner asks for, and their list. */
function partnerRefunds(deps: RefundDeps, steps: RefundSteps) {
  const { refunds, idempotency, providers, credentials, stores } = deps;
  const makeRefund = refundWorkflow(deps, steps);
  return {
    /**
     * Refunds all or part of a succeeded intent. A QR payment is refunded at its provider (the refund id is the
     * provider's idempotency key, so a retried call cannot refund twice); card and cash refunds happen outside the
     * gateway and are only recorded.
     */
    async refund(caller: Caller, id: string, input: unknown, request?: IdempotencyRequest | null) {
      const client_partner_id = partnerIdOf(caller, "refunds:write");
      return idempotency.run<{ refund: Refund }>(client_partner_id, request, async (complete) => {
        const parsed = parseRefundInput(input);
        const found = await refunds.findIntent(id, client_partner_id);
        if (!found || !keyReachesStore(caller, found.store_id))
          throw new AppError("not_found", "payment intent not found");
        // Money leaving the merchant needs a live grant (docs/decisions/gateway.md, "What revoking a grant stops").
        if (!(await stores.reaches(client_partner_id, { id: found.store_id, merchant_id: found.merchant_id }))) {
          throw new AppError("forbidden", "your grant on this intent's store was revoked: refunds need a live grant");
        }
        const viaProvider = found.processing_mode === "pgw_processed" && found.provider_transaction_id !== null;
        // Credentials first: a store without its provider configuration changes nothing.
        const provider = viaProvider ? providers.get(found.provider_name!) : null;
        const storeCredentials = provider ? await credentials.forStore(found.store_id, provider.name) : null;
        return makeRefund({
          request: { payment_intent_id: id, client_partner_id, ...parsed, viaProvider },
          provider,
          credentials: storeCredentials,
          keep: (tx, refund) => complete(tx, { refund }),
        });
      });
    },
    async listForIntent(caller: Caller, id: string) {
      const found = await refunds.findIntent(id, partnerIdOf(caller, "payment_intents:read"));
      if (!found || !keyReachesStore(caller, found.store_id))
        throw new AppError("not_found", "payment intent not found");
      return refunds.listForIntent(id);
    },
  };
}

/**
 * Refunds settled after the call that began them: a late payment's, given back at the provider, and those whose
 * provider could not be asked or answered at once, which a sweep asks again.
 */
function deferredRefunds(deps: RefundDeps, steps: RefundSteps) {
  const { refunds, clock } = deps;
  return {
    /** A late payment's refund, begun inside the transaction that records the provider's outcome (provider-events). */
    beginLatePaymentRefund: (tx: Prisma.TransactionClient, payment_intent_id: string, now: Date) =>
      beginLatePaymentRefund(refunds, tx, payment_intent_id, now),
    /**
     * Settles provider refunds whose request died between the provider call and its answer being written, which
     * would leave the intent in cancelling, and late payments' refunds the provider could not take at once. Each
     * instance claims its refunds, so none is asked about twice at once; one still unsettled is pushed back.
     */
    async resumePending(): Promise<number> {
      let settled = 0;
      for (const refund of await refunds.claimPending(clock(), SWEEP_BATCH)) {
        const intent = await refunds.findIntentById(refund.payment_intent_id);
        if (intent && (await askProvider(deps, steps, refund, intent))) {
          settled++;
          countOutcome("refund_recovery", "done");
          continue;
        }
        const attempts = refund.poll_attempts + 1;
        const next = nextAttempt(retryPolicies.refund_recovery, attempts, clock()) as NextAttempt;
        await refunds.retryLater(refund.id, attempts, next.at);
        countOutcome("refund_recovery", "retried");
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
        await askProvider(deps, steps, refund, intent);
      }
    },
  };
}

export function refundService(deps: RefundDeps) {
  const steps = refundSteps(deps);
  // Its steps too, for a flow that records or settles a refund as a step of its own (the test support's dead request).
  return { ...partnerRefunds(deps, steps), ...deferredRefunds(deps, steps), steps };
}
