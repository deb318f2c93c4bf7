import { type Caller, invalidField, requireService } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { TransactionService } from "../ledger";
import type { StoreResolver } from "../partners";
import type { PaymentIntentService } from "../payment-intents";
import type { SeenSignatureRepository } from "./seen-signature.repository";

export type GatewayFrontService = ReturnType<typeof gatewayFrontService>;

/** Longer than any signature can stay inside the ±5-minute window; a bound, so no row is kept for ever. */
const MAX_TTL_SECONDS = 15 * 60;
const MAX_SIGNATURE_LENGTH = 128;
/** Expired signatures are deleted by the first claim after this much time, so the table holds about 10 minutes. */
const CLEANUP_EVERY_MS = 60_000;

/**
 * What the edge asks before a signed `/v1` request runs: is its signature new, and which store is it for (the one it
 * names, or the one of the intent it acts on, itself or through one of its ledger rows).
 */
export function gatewayFrontService(deps: {
  signatures: SeenSignatureRepository;
  stores: StoreResolver;
  intents: Pick<PaymentIntentService, "storeForEdge">;
  transactions: Pick<TransactionService, "intentForEdge">;
  clock: Clock;
}) {
  const { signatures, stores, intents, transactions, clock } = deps;
  let nextCleanup = 0;
  return {
    /**
     * True the first time a signature is claimed within its lifetime, and for an exact replay of a request with an
     * Idempotency-Key (the same key's hash both times); false for any other replay.
     */
    async claimSignature(
      caller: Caller,
      signature: string,
      ttl_seconds: number,
      idempotency_key: string | null = null,
    ): Promise<boolean> {
      requireService(caller);
      const requireLength = (field: string, value: string) => {
        if (value.length === 0 || value.length > MAX_SIGNATURE_LENGTH)
          throw invalidField(field, "length", `${field} must be 1 to ${MAX_SIGNATURE_LENGTH} characters`);
      };
      requireLength("signature", signature);
      if (idempotency_key !== null) requireLength("idempotency_key", idempotency_key);
      if (!Number.isInteger(ttl_seconds) || ttl_seconds < 1 || ttl_seconds > MAX_TTL_SECONDS) {
        throw invalidField("ttl_seconds", "range", `ttl_seconds must be 1 to ${MAX_TTL_SECONDS}`);
      }
      const now = clock();
      if (now.getTime() >= nextCleanup) {
        nextCleanup = now.getTime() + CLEANUP_EVERY_MS;
        await signatures.deleteExpired(now);
      }
      return signatures.claim(signature, new Date(now.getTime() + ttl_seconds * 1000), idempotency_key);
    },

    async storeFor(caller: Caller, client_partner_id: number, merchant_store_id: string | null | undefined) {
      requireService(caller);
      const store = await stores.find(client_partner_id, merchant_store_id ?? null);
      return store && { store_id: store.id, merchant_id: store.merchant_id };
    },

    /** The store of the partner's intent `payment_intent_id`; null for an unknown id or another partner's intent. */
    intentStoreFor: (caller: Caller, client_partner_id: number, payment_intent_id: string) =>
      intents.storeForEdge(caller, client_partner_id, payment_intent_id),

    /** The store of the intent of the partner's ledger row `transaction_id`; null when the partner has no such row. */
    async transactionStoreFor(caller: Caller, client_partner_id: number, transaction_id: string) {
      const intent = await transactions.intentForEdge(caller, client_partner_id, transaction_id);
      return intent === null ? null : intents.storeForEdge(caller, client_partner_id, intent);
    },
  };
}
