import {
  AppError,
  type Caller,
  countsPerStore,
  invalidField,
  keyReachesStore,
  parseCursor,
  partnerIdOf,
  paymentIntentMachine,
  paymentIntentStatuses,
  type ReachableStore,
  requireService,
} from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PaymentIntentRepository } from "./payment-intent.repository";
import { observeExpiry } from "./payment-intent-expiry.service";

/** States an intent leaves by itself when `expires_at` passes. */
const EXPIRING = paymentIntentMachine.fromStates("expire");
const MAX_PAGE = 100;
const DEFAULT_PAGE = 20;

/** Intents as partners, the store hierarchy, the edge and other subgraphs read them: each seen after its expiry. */
export function paymentIntentReads({ intents, clock }: { intents: PaymentIntentRepository; clock: Clock }) {
  return {
    /**
     * `payment_intents_count` of many stores (every store of a hierarchy) in one statement, for stores already
     * checked against the caller; intents count only under the merchant the portal placed the store in.
     */
    intentCounts: async (stores: ReachableStore[]) =>
      countsPerStore(await intents.countByStores(stores.map((store) => store.id))),

    async list(
      caller: Caller,
      filter: {
        merchant_store_id?: string | null;
        status?: string | null;
        limit?: number | null;
        offset?: number | null;
        after?: string | null;
        updated_since?: Date | null;
      },
    ) {
      const client_partner_id = partnerIdOf(caller, "payment_intents:read");
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
      for (const intent of await intents.overdue(client_partner_id, EXPIRING, clock())) {
        await observeExpiry(intents, clock, intent);
      }
      return intents.list(
        {
          client_partner_id,
          merchant_store_id: filter.merchant_store_id ?? undefined,
          status: filter.status ?? undefined,
          store_id: caller.storeIds?.length ? { in: caller.storeIds } : undefined,
          updated_at: filter.updated_since ? { gte: filter.updated_since } : undefined,
        },
        { limit, offset, after },
      );
    },

    /** An intent of a store already checked against the caller (`Store.payment_intent`), under its merchant. */
    async findInStore(store: ReachableStore, id: string) {
      const intent = await intents.findInStore(id, store.id, store.merchantId);
      if (!intent) throw new AppError("not_found", "payment intent not found");
      return observeExpiry(intents, clock, intent);
    },

    /** The edge's look-up behind a subscription: any intent by id, for the edge alone. */
    async findForEdge(caller: Caller, id: string) {
      requireService(caller);
      const intent = await intents.findById(id);
      return intent && observeExpiry(intents, clock, intent);
    },

    /**
     * The edge's look-up behind its rate limits: the store and merchant of the partner's intent, read once and never
     * moved (an expired intent still counts where it was made); null for an unknown id or another partner's intent.
     */
    async storeForEdge(caller: Caller, client_partner_id: number, id: string) {
      requireService(caller);
      return intents.storeOf(id, client_partner_id);
    },

    /** Another subgraph asking for an intent by key: partners see their own; nobody else reads through here. */
    async findForCaller(caller: Caller, id: string) {
      if (caller.type !== "partner") return null;
      const intent = await intents.findForPartner(id, partnerIdOf(caller, "payment_intents:read"));
      return intent && keyReachesStore(caller, intent.store_id) ? observeExpiry(intents, clock, intent) : null;
    },
  };
}
