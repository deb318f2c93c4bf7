import {
  AppError,
  type Caller,
  type IdempotencyRequest,
  initialPaymentIntentStatus,
  keyReachesStore,
  newUlid,
  type PaymentIntentEvent,
  partnerIdOf,
  paymentIntentMachine,
  requireKeyStore,
} from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PaymentIntent, Prisma, Store } from "../../generated/prisma/client";
import type { IdempotencyService } from "../idempotency";
import { appendCaptureEntries } from "../ledger/transaction.repository";
import { requireCurrentSync, type StoreResolver } from "../partners";
import { type CreatePaymentIntentInput, parseCreateInput } from "./payment-intent.inputs";
import type { PaymentIntentRepository } from "./payment-intent.repository";
import { type CaptureInput, capturableFor, captureOf } from "./payment-intent-capture.rules";
import { EXPIRY, expired, isExpired, observeExpiry } from "./payment-intent-expiry.service";
import { paymentIntentReads } from "./payment-intent-reads.service";
import { hashPaymentToken, newPaymentToken, PAYMENT_TOKEN_SECONDS } from "./payment-token.rules";

export type PaymentIntentService = ReturnType<typeof paymentIntentService>;

const EXPIRY_BATCH = 100;

export interface PaymentTokenGrant {
  token: string;
  payment_intent_id: string;
  expires_in: number;
}

export interface PaymentIntentResult {
  payment_intent: PaymentIntent;
  payment_token: PaymentTokenGrant | null;
}

interface PaymentIntentDeps {
  intents: PaymentIntentRepository;
  stores: StoreResolver;
  idempotency: IdempotencyService;
  /**
   * Cancelling a confirmed QR at its provider (provider-events' `cancelAtProvider`), described here rather than
   * imported: provider-events moves intents through this module, and modules import one way only (no cycles).
   */
  outcomes: { cancelAtProvider(intent: PaymentIntent): Promise<void> };
  clock: Clock;
}

/** A conditional move that lost its race: the 409 the machine gives from the state it lost to. */
function changedMeanwhile(latest: PaymentIntent, event: PaymentIntentEvent) {
  paymentIntentMachine.transition(latest.status, event);
  return new AppError("invalid_state", "the payment intent changed meanwhile", { status: latest.status, event });
}

/** Capture and replays answer with the same shape as create, minus a token. */
const result = (payment_intent: PaymentIntent, payment_token: PaymentTokenGrant | null = null) => ({
  payment_intent,
  payment_token,
});

/**
 * A new intent of the partner at the store, in the status its processing mode starts in. Field by field, not
 * `{ ...parsed, ... }`: that spread cost about 10 KB per create, and half of it outlived two young collections
 * (docs/benchmarks.md).
 */
function newIntent(
  id: string,
  parsed: CreatePaymentIntentInput,
  owner: { client_partner_id: number; store: Pick<Store, "id" | "merchant_id" | "tip_ceiling_percent"> },
  now: Date,
): PaymentIntent {
  const status = initialPaymentIntentStatus[parsed.processing_mode];
  const captured = parsed.processing_mode === "external";
  return {
    id,
    amount: parsed.amount,
    currency: parsed.currency,
    payment_method_types: parsed.payment_method_types,
    payment_method_type: parsed.payment_method_type,
    processing_mode: parsed.processing_mode,
    merchant_ref_id: parsed.merchant_ref_id,
    merchant_store_id: parsed.merchant_store_id,
    merchant_terminal_id: parsed.merchant_terminal_id,
    order_id: parsed.order_id,
    description: parsed.description,
    merchant_id: owner.store.merchant_id,
    store_id: owner.store.id,
    client_partner_id: owner.client_partner_id,
    status,
    provider_name: null,
    provider_transaction_id: null,
    failure_code: null,
    failure_message: null,
    metadata: parsed.metadata as Prisma.JsonValue,
    captured_at: status === "succeeded" ? now : null,
    amount_capturable: captured ? capturableFor(parsed.amount, owner.store.tip_ceiling_percent) : 0,
    amount_received: status === "succeeded" ? parsed.amount : 0,
    created_at: now,
    updated_at: now,
    expires_at: new Date(now.getTime() + parsed.expires_in_minutes * 60_000),
    next_poll_at: now,
    poll_attempts: 0,
  };
}

/** What a partner does to its intents, each call idempotent: create one, capture an external or manual payment. */
function partnerWrites({ intents, stores, idempotency, clock }: PaymentIntentDeps) {
  return {
    async create(caller: Caller, input: unknown, request?: IdempotencyRequest | null) {
      const client_partner_id = partnerIdOf(caller, "payment_intents:write");
      return idempotency.run<PaymentIntentResult>(client_partner_id, request, async (complete) => {
        const parsed = parseCreateInput(input);
        const store = await stores.resolve(client_partner_id, parsed.merchant_store_id);
        requireKeyStore(caller, store.id);
        const now = clock();
        requireCurrentSync(store, now);
        // Every intent gets a token, a cash one too: the create response has one shape and a terminal's web view
        // can read any intent it shows.
        const token = newPaymentToken();
        const id = `pi_${newUlid(now.getTime())}`;
        const grant = { token: token.token, payment_intent_id: id, expires_in: PAYMENT_TOKEN_SECONDS };
        const intent = newIntent(id, parsed, { client_partner_id, store }, now);
        const response = result(intent, grant);
        await intents.create(
          intent,
          { token_hash: token.token_hash, expires_at: new Date(now.getTime() + PAYMENT_TOKEN_SECONDS * 1000) },
          complete.statement(response),
        );
        return response;
      });
    },

    /**
     * Capture records the result of an external or manual payment: `amount`, if sent, must be the intent's;
     * `amount_to_capture` may be less (the rest is released) or more, up to `amount_capturable` (a tip).
     */
    async capture(caller: Caller, id: string, input: CaptureInput, request?: IdempotencyRequest | null) {
      const client_partner_id = partnerIdOf(caller, "payment_intents:write");
      return idempotency.run<PaymentIntentResult>(client_partner_id, request, async (complete) => {
        const found = await intents.findForPartner(id, client_partner_id);
        if (!found || !keyReachesStore(caller, found.store_id))
          throw new AppError("not_found", "payment intent not found");
        const intent = await observeExpiry(intents, clock, found);
        if (isExpired(intent)) throw expired();
        if (intent.processing_mode === "pgw_processed") {
          throw new AppError(
            "invalid_state",
            "a pgw_processed payment intent is paid through its provider, not captured",
            {
              status: intent.status,
              event: "capture",
            },
          );
        }
        paymentIntentMachine.transition(intent.status, "capture");
        const { event, amount_received } = captureOf(intent, input);
        const now = clock();
        const moved = await intents.transition(
          id,
          intent.status,
          event,
          { captured_at: now, amount_received },
          now,
          async (tx, captured) => {
            await appendCaptureEntries(tx, captured, now);
            await complete(tx, result(captured));
          },
          { ledger: null },
        );
        if (!moved) throw changedMeanwhile((await intents.findById(id)) ?? intent, event);
        return result(moved);
      });
    },
  };
}

/**
 * What the holder of an intent's payment token does. The token opens only its own intent, for 5 minutes. Confirm
 * uses it up; a used token still reads the intent and its ledger and cancels it, so the web view can follow the
 * payment it started (docs/decisions.md).
 */
function tokenHolderActions({ intents, outcomes, clock }: PaymentIntentDeps) {
  async function withToken(id: string, token: string, use: "follow" | "confirm"): Promise<PaymentIntent> {
    const row = token ? await intents.findToken(hashPaymentToken(token)) : null;
    if (!row || row.payment_intent_id !== id || row.expires_at <= clock() || (use === "confirm" && row.consumed_at)) {
      throw new AppError("invalid_token", "the payment token is missing, invalid or expired");
    }
    const intent = await intents.findById(id);
    if (!intent) throw new AppError("invalid_token", "the payment token is missing, invalid or expired");
    return observeExpiry(intents, clock, intent);
  }

  return {
    retrieve: (id: string, token: string) => withToken(id, token, "follow"),

    /** The intent a confirm works on: the token must be unused (the confirm itself uses it up, conditionally). */
    forConfirm: (id: string, token: string) => withToken(id, token, "confirm"),

    async cancel(id: string, token: string) {
      const intent = await withToken(id, token, "follow");
      if (isExpired(intent)) throw expired();
      paymentIntentMachine.transition(intent.status, "cancel");
      // A confirmed QR is cancelled at its provider first: if the customer paid it, the provider refuses and the
      // intent follows the payment instead (409).
      if (intent.provider_transaction_id) await outcomes.cancelAtProvider(intent);
      const moved = await intents.transition(id, intent.status, "cancel", {}, clock());
      if (!moved) throw changedMeanwhile((await intents.findById(id)) ?? intent, "cancel");
      return moved;
    },
  };
}

export function paymentIntentService(deps: PaymentIntentDeps) {
  return {
    ...partnerWrites(deps),
    ...tokenHolderActions(deps),
    ...paymentIntentReads(deps),
    /**
     * The expiry sweeper: open intents past `expires_at` reach their terminal state (as a read would move them) with
     * their event, so it is published without anyone reading them. Instances claim their intents, so none waits on
     * another. The number expired.
     */
    expireOverdue: () => deps.intents.expireOverdue(EXPIRY, deps.clock(), EXPIRY_BATCH),
  };
}
