import { type IdempotencyRequest, idempotency } from "@pos-cloud/common";
import type { Prisma } from "../../generated/prisma/client";
import type { StoreKeyRepository, Tx } from "./idempotency.repository";

export type StoreIdempotency = ReturnType<typeof storeIdempotency>;

/** Given to the work of a request: the payment its key stands for, and how it keeps its answer. */
export interface StoreKey<T> {
  /** The payment a POST /payments key was claimed for (the first one's, for a released key), else the one asked. */
  payment_id: string | null;
  /** Keeps the answer for replays, in the transaction of the work it answers for; nothing without a key. */
  complete(tx: Tx, response: T): Promise<void>;
}

interface KeyScope {
  store_id: number;
  payment_id: string | null;
  /** The work's answer commits with it (orders, bills): a claim abandoned in progress made nothing. */
  atomic: boolean;
}

const toJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

/**
 * The Idempotency-Keys of POS writes (payments, refunds, orders, bills; one key space per store) on the platform's
 * one idempotency (`idempotency` in common), each request bound by `idempotencyRequest`. A POST /payments key names
 * its payment when claimed, so a request that died is taken over by its own retry under the same payment id once the
 * recovery pass released it (docs/decisions.md).
 */
export function storeIdempotency(keys: StoreKeyRepository, clock: () => Date, abandonedAfterMs: number) {
  const storeKeys = idempotency<KeyScope, { key: string; payment_id: string | null }>(
    {
      async claim(scope, { key, request_hash }, times) {
        const taken = await keys.claim({ ...scope, key, request_hash, ...times });
        return taken && { key, payment_id: taken.payment_id };
      },
      held: (scope, key) => keys.held(scope.store_id, key),
      release: (scope, claim) => keys.release(scope.store_id, claim.key),
    },
    { clock, abandonedAfterMs },
  );

  return {
    /**
     * Runs `work` at most once per (store, key) for 24 hours: the same request again answers the first response
     * (`replayed: true`); another request with the key, or the same one while the first runs, is
     * `idempotency_conflict`; work that fails frees the key unless it completed it first (a refund the gateway may
     * have made answers its retries). Without a key the work just runs. Work that is `atomic` (one transaction that
     * completes the key) is taken over by its own retry once abandoned (`abandonedAfterMs`), as its claim made
     * nothing; other keys wait for the recovery pass (payments) or their expiry.
     */
    run<T extends object>(
      store_id: number,
      request: IdempotencyRequest | null,
      work: (key: StoreKey<T>) => Promise<T>,
      { payment_id = null, atomic = false }: { payment_id?: string | null; atomic?: boolean } = {},
    ) {
      return storeKeys.run({ store_id, payment_id, atomic }, request, (claim) =>
        work({
          payment_id: claim?.payment_id ?? payment_id,
          async complete(tx, response) {
            if (claim) await keys.complete(tx, store_id, claim.key, toJson(response));
          },
        }),
      );
    },

    /**
     * Releases the keys of POS payments whose request died (still processing when the pass's `now` is past their
     * abandonment, as the gateway takes over its abandoned keys), one row lock at a time: a key whose payment was
     * written (`answer` gives its response) answers it from now on; a key whose payment never was is released, for
     * the same request to take over with the same payment id (so the gateway's key finds any intent the dead request
     * made). Payments still `inFlight` are the interrupted-payment recovery's first.
     */
    async releaseAbandoned(
      now: Date,
      batch: number,
      inFlight: readonly string[],
      answer: (tx: Tx, payment_id: string) => Promise<object | null>,
    ) {
      for (let handled = 0; handled < batch; handled++) {
        const done = await keys.transaction(async (tx) => {
          const key = await keys.claimAbandoned(tx, storeKeys.abandonedBefore(now), inFlight);
          if (!key) return false;
          const response = await answer(tx, key.payment_id);
          if (response) await keys.complete(tx, key.store_id, key.idempotency_key, toJson(response));
          else await keys.markReleased(tx, key.store_id, key.idempotency_key);
          return true;
        });
        if (!done) break;
      }
    },
  };
}
