import { idempotency } from "@pos-cloud/common";
import type { Prisma } from "../../generated/prisma/client";
import { presentPayment } from "./payment.presenter";
import type { PaymentRepository, Tx } from "./payment.repository";

export type PaymentKeys = ReturnType<typeof paymentKeys>;

/** A store's key, and the payment it is claimed for (a fresh id, or the first one of a released key). */
interface KeyScope {
  store_id: number;
  payment_id: string | null;
}

const toJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

/**
 * The Idempotency-Keys of POS payments and refunds (one key space per store), on the platform's one idempotency
 * (`idempotency` in common). A key names its payment when claimed, so a request that died is taken over by its own
 * retry under the same payment id once the recovery pass released it (docs/decisions.md).
 */
export function paymentKeys(payments: PaymentRepository, clock: () => Date, abandonedAfterMs: number) {
  const keys = idempotency<KeyScope, { key: string; payment_id: string | null }>(
    {
      async claim(scope, request, times) {
        const { store_id, payment_id } = scope;
        const { key, request_hash } = request;
        const taken = await payments.claimKey(store_id, key, request_hash, payment_id, times.now, times.expires_at);
        return taken && { key, payment_id: taken.payment_id };
      },
      held: (scope, key) => payments.heldKey(scope.store_id, key),
      release: (scope, claim) => payments.releaseKey(scope.store_id, claim.key),
    },
    { clock, abandonedAfterMs },
  );

  return {
    /** Claims `key` of a store for a request, or answers what holds it; null when the request has no key. */
    claim: (
      store_id: number,
      key: string | null | undefined,
      request_hash: string,
      payment_id: string | null = null,
    ) => (key === null || key === undefined ? null : keys.claim({ store_id, payment_id }, { key, request_hash })),
    complete: (tx: Tx, store_id: number, key: string, response: unknown) =>
      payments.completeKey(tx, store_id, key, toJson(response)),
    release: (store_id: number, key: string) => keys.release({ store_id, payment_id: null }, { key, payment_id: null }),

    /**
     * Releases the keys of POS payments whose request died (still processing when the pass's `now` is past their
     * abandonment, as the gateway takes over its abandoned keys), one row lock at a time: a key whose payment was
     * written answers it from now on; a key whose payment never was is released, for the same request to take over
     * with the same payment id (so the gateway's key finds any intent the dead request made).
     */
    async releaseAbandoned(now: Date, batch: number) {
      for (let handled = 0; handled < batch; handled++) {
        const done = await payments.transaction(async (tx) => {
          const key = await payments.claimAbandonedKey(tx, keys.abandonedBefore(now));
          if (!key) return false;
          const payment = await payments.find(key.payment_id, tx);
          if (payment)
            await payments.completeKey(tx, key.store_id, key.idempotency_key, toJson(presentPayment(payment)));
          else await payments.markKeyReleased(tx, key.store_id, key.idempotency_key);
          return true;
        });
        if (!done) break;
      }
    },
  };
}
