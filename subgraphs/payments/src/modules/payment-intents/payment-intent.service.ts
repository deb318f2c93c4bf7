import {
  AppError,
  type Caller,
  countsPerStore,
  type IdempotencyRequest,
  initialPaymentIntentStatus,
  invalidField,
  newUlid,
  type PaymentIntentEvent,
  parseCursor,
  partnerIdOf,
  paymentIntentMachine,
  paymentIntentStatuses,
  type ReachableStore,
  requireService,
} from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PaymentIntent, Prisma } from "../../generated/prisma/client";
import type { IdempotencyService } from "../idempotency/idempotency.service";
import type { StoreResolver } from "../partners/store-resolver";
import { requireCurrentSync } from "../partners/sync-lease";
import { parseAmount, parseCreateInput } from "./payment-intent.input";
import type { PaymentIntentRepository } from "./payment-intent.repository";
import { hashPaymentToken, newPaymentToken, PAYMENT_TOKEN_SECONDS } from "./payment-token";

export type PaymentIntentService = ReturnType<typeof paymentIntentService>;

/** States an intent leaves by itself when `expires_at` passes. */
const EXPIRING = paymentIntentMachine.fromStates("expire");
const MAX_PAGE = 100;
const DEFAULT_PAGE = 20;

export interface PaymentTokenGrant {
  token: string;
  payment_intent_id: string;
  expires_in: number;
}

export interface PaymentIntentResult {
  payment_intent: PaymentIntent;
  payment_token: PaymentTokenGrant | null;
}

/** What expiry does to an open intent, whether a read or the sweeper sees it first. */
const EXPIRY = {
  failure_code: "expired",
  failure_message: "the payment intent expired before it was completed",
};
const EXPIRY_BATCH = 100;

const expired = () => new AppError("intent_expired", "the payment intent has expired");
/** A conditional move that lost its race: the 409 the machine gives from the state it lost to. */
function changedMeanwhile(latest: PaymentIntent, event: PaymentIntentEvent) {
  paymentIntentMachine.transition(latest.status, event);
  return new AppError("invalid_state", "the payment intent changed meanwhile", { status: latest.status, event });
}

export function paymentIntentService(deps: {
  intents: PaymentIntentRepository;
  stores: StoreResolver;
  idempotency: IdempotencyService;
  /**
   * Cancelling a confirmed QR at its provider (provider-events' `cancelAtProvider`), described here rather than
   * imported: provider-events moves intents through this module, and modules import one way only (no cycles).
   */
  outcomes: { cancelAtProvider(intent: PaymentIntent): Promise<void> };
  clock: Clock;
}) {
  const { intents, stores, idempotency, outcomes, clock } = deps;

  /**
   * Expiry holds whether or not the sweeper ran: an open intent read after `expires_at` is cancelled (failure_code
   * `expired`) with its event, by whichever read (or sweep) sees it first.
   */
  async function observe(intent: PaymentIntent): Promise<PaymentIntent> {
    const now = clock();
    if (!paymentIntentMachine.allows(intent.status, "expire") || intent.expires_at > now) return intent;
    const moved = await intents.transition(intent.id, intent.status, "expire", EXPIRY, now);
    return moved ?? (await intents.findById(intent.id)) ?? intent;
  }

  const isExpired = (intent: PaymentIntent) => intent.status === "cancelled" && intent.failure_code === "expired";

  /**
   * A payment token opens only its own intent, for 5 minutes. Confirm uses it up; a used token still reads the intent
   * and its ledger and cancels it, so the web view can follow the payment it started (docs/decisions.md).
   */
  async function withToken(id: string, token: string, use: "follow" | "confirm"): Promise<PaymentIntent> {
    const row = token ? await intents.findToken(hashPaymentToken(token)) : null;
    if (!row || row.payment_intent_id !== id || row.expires_at <= clock() || (use === "confirm" && row.consumed_at)) {
      throw new AppError("invalid_token", "the payment token is missing, invalid or expired");
    }
    const intent = await intents.findById(id);
    if (!intent) throw new AppError("invalid_token", "the payment token is missing, invalid or expired");
    return observe(intent);
  }

  /** Capture and replays answer with the same shape as create, minus a token. */
  const result = (payment_intent: PaymentIntent, payment_token: PaymentTokenGrant | null = null) => ({
    payment_intent,
    payment_token,
  });

  return {
    /**
     * `payment_intents_count` of many stores (every store of a hierarchy) in one statement, for stores already
     * checked against the caller; intents count only under the merchant the portal placed the store in.
     */
    intentCounts: async (stores: ReachableStore[]) =>
      countsPerStore(await intents.countByStores(stores.map((store) => store.id))),

    async create(caller: Caller, input: unknown, request?: IdempotencyRequest | null) {
      const client_partner_id = partnerIdOf(caller);
      return idempotency.run<PaymentIntentResult>(client_partner_id, request, async (complete) => {
        const parsed = parseCreateInput(input);
        const store = await stores.resolve(client_partner_id, parsed.merchant_store_id);
        const now = clock();
        requireCurrentSync(store, now);
        const status = initialPaymentIntentStatus[parsed.processing_mode];
        // Every intent gets a token, a cash one too: the create response has one shape and a terminal's web view
        // can read any intent it shows.
        const token = newPaymentToken();
        const id = `pi_${newUlid(now.getTime())}`;
        const grant = { token: token.token, payment_intent_id: id, expires_in: PAYMENT_TOKEN_SECONDS };
        // Field by field, not `{ ...parsed, ... }`: that spread cost about 10 KB per create, and half of it outlived
        // two young collections (docs/benchmarks.md).
        const intent: PaymentIntent = {
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
          merchant_id: store.merchant_id,
          store_id: store.id,
          client_partner_id,
          status,
          provider_name: null,
          provider_transaction_id: null,
          failure_code: null,
          failure_message: null,
          metadata: parsed.metadata as Prisma.JsonValue,
          captured_at: status === "succeeded" ? now : null,
          created_at: now,
          updated_at: now,
          expires_at: new Date(now.getTime() + parsed.expires_in_minutes * 60_000),
          next_poll_at: now,
          poll_attempts: 0,
        };
        const response = result(intent, grant);
        await intents.create(
          intent,
          { token_hash: token.token_hash, expires_at: new Date(now.getTime() + PAYMENT_TOKEN_SECONDS * 1000) },
          complete.statement(response),
        );
        return response;
      });
    },

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

    /** Capture records the result of an external or manual payment; the amount, if sent, must be the intent's. */
    async capture(caller: Caller, id: string, amount: unknown, request?: IdempotencyRequest | null) {
      const client_partner_id = partnerIdOf(caller);
      return idempotency.run<PaymentIntentResult>(client_partner_id, request, async (complete) => {
        const found = await intents.findForPartner(id, client_partner_id);
        if (!found) throw new AppError("not_found", "payment intent not found");
        const intent = await observe(found);
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
        if (amount !== undefined && amount !== null && parseAmount(amount) !== intent.amount) {
          throw invalidField("amount", "equals_intent_amount", "amount must equal the payment intent's amount");
        }
        const now = clock();
        const moved = await intents.transition(
          id,
          intent.status,
          "capture",
          { captured_at: now },
          now,
          (tx, captured) => complete(tx, result(captured)),
        );
        if (!moved) throw changedMeanwhile((await intents.findById(id)) ?? intent, "capture");
        return result(moved);
      });
    },

    async list(
      caller: Caller,
      filter: {
        merchant_store_id?: string | null;
        status?: string | null;
        limit?: number | null;
        offset?: number | null;
        after?: string | null;
      },
    ) {
      const client_partner_id = partnerIdOf(caller);
      const limit = filter.limit ?? DEFAULT_PAGE;
      const offset = filter.offset ?? 0;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
        throw invalidField("limit", "range", `limit must be 1 to ${MAX_PAGE}`);
      }
      if (!Number.isInteger(offset) || offset < 0) throw invalidField("offset", "min", "offset must be 0 or more");
      if (filter.status && !paymentIntentMachine.isState(filter.status)) {
        throw invalidField("status", "enum", `status must be one of ${paymentIntentStatuses}`);
      }
      const after = parseCursor(filter.after);
      for (const intent of await intents.overdue(client_partner_id, EXPIRING, clock())) await observe(intent);
      return intents.list(
        {
          client_partner_id,
          merchant_store_id: filter.merchant_store_id ?? undefined,
          status: filter.status ?? undefined,
        },
        { limit, offset, after },
      );
    },

    /**
     * The expiry sweeper: open intents past `expires_at` reach their terminal state (as a read would move them) with
     * their event, so it is published without anyone reading them. Instances claim their intents, so none waits on
     * another. The number expired.
     */
    expireOverdue: () => intents.expireOverdue(EXPIRY, clock(), EXPIRY_BATCH),

    /** An intent of a store already checked against the caller (`Store.payment_intent`), under its merchant. */
    async findInStore(store: ReachableStore, id: string) {
      const intent = await intents.findInStore(id, store.id, store.merchantId);
      if (!intent) throw new AppError("not_found", "payment intent not found");
      return observe(intent);
    },

    /** The edge's look-up behind a subscription: any intent by id, for the edge alone. */
    async findForEdge(caller: Caller, id: string) {
      requireService(caller);
      const intent = await intents.findById(id);
      return intent && observe(intent);
    },

    /** Another subgraph asking for an intent by key: partners see their own; nobody else reads through here. */
    async findForCaller(caller: Caller, id: string) {
      if (caller.type !== "partner") return null;
      const intent = await intents.findForPartner(id, partnerIdOf(caller));
      return intent && observe(intent);
    },
  };
}
