import { lockDue, onPrisma, type TaskTable } from "@pos-cloud/common/tasks";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

export type StoreKeyRepository = ReturnType<typeof storeKeyRepository>;
export type Tx = Prisma.TransactionClient;

/**
 * The Idempotency-Keys of POS writes (payments, refunds, orders, bills), one key space per store, in
 * `payment_idempotency_keys` (named for its first use).
 */
/** A payment key still processing whose request died is a `pos_key_release` task, oldest first. */
const abandonedKeys: TaskTable = {
  kind: "pos_key_release",
  table: "payment_idempotency_keys",
  key: "idempotency_key",
  due: "created_at",
};

export function storeKeyRepository(prisma: PrismaClient) {
  return {
    /**
     * Claims an Idempotency-Key of a store for `payment_id`; null when another request holds it. An expired key is
     * taken over; a released one by the same request only, which keeps the payment the key was first claimed for; an
     * `atomic` one still processing since before `abandoned_before` by the same request too (its work made nothing).
     */
    async claim(claim: {
      store_id: number;
      key: string;
      request_hash: string;
      payment_id: string | null;
      atomic: boolean;
      now: Date;
      expires_at: Date;
      abandoned_before: Date;
    }): Promise<{ payment_id: string | null } | null> {
      const { store_id, key, request_hash, payment_id, atomic, now } = claim;
      const taken = await prisma.$queryRaw<{ payment_id: string | null }[]>`INSERT INTO payment_idempotency_keys
          (store_id, idempotency_key, request_hash, status, created_at, expires_at, payment_id, atomic)
        VALUES (${store_id}, ${key}, ${request_hash}, 'processing', ${now}, ${claim.expires_at}, ${payment_id}::uuid,
          ${atomic})
        ON CONFLICT (store_id, idempotency_key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, status = 'processing', response = NULL,
            created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, atomic = EXCLUDED.atomic,
            payment_id = CASE WHEN payment_idempotency_keys.expires_at <= ${now}
              THEN EXCLUDED.payment_id ELSE payment_idempotency_keys.payment_id END
          WHERE payment_idempotency_keys.expires_at <= ${now}
            OR (payment_idempotency_keys.request_hash = EXCLUDED.request_hash
              AND (payment_idempotency_keys.status = 'released'
                OR (payment_idempotency_keys.status = 'processing' AND payment_idempotency_keys.atomic
                  AND payment_idempotency_keys.created_at <= ${claim.abandoned_before})))
        RETURNING payment_id::text`;
      return taken[0] ?? null;
    },
    held: (store_id: number, key: string) =>
      prisma.paymentIdempotencyKey.findUnique({
        where: { store_id_idempotency_key: { store_id, idempotency_key: key } },
        select: { request_hash: true, response: true },
      }),

    /**
     * Locks, for the transaction, the oldest payment key still processing that was claimed before `before`, whose
     * payment is not in flight (`inFlight`, the statuses of a payment the interrupted-payment recovery finishes
     * first); rows another process holds are passed over. Null when none is left.
     */
    async claimAbandoned(tx: Tx, before: Date, inFlight: readonly string[]) {
      const rows = await lockDue<{ store_id: number; idempotency_key: string; payment_id: string }>(
        onPrisma(tx),
        abandonedKeys,
        {
          where: Prisma.sql`task.status = 'processing' AND task.created_at < ${before} AND task.payment_id IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM payments p
              WHERE p.id = task.payment_id AND p.status = ANY(${[...inFlight]}::text[]))`,
          limit: 1,
          returning: Prisma.sql`task.store_id, task.idempotency_key, task.payment_id::text`,
        },
      );
      return rows[0] ?? null;
    },
    /** Frees a key whose request died before writing anything, for the same request to take over. */
    markReleased: (tx: Tx, store_id: number, key: string) =>
      tx.paymentIdempotencyKey.update({
        where: { store_id_idempotency_key: { store_id, idempotency_key: key } },
        data: { status: "released" },
      }),
    complete: (tx: Tx, store_id: number, key: string, response: Prisma.InputJsonValue) =>
      tx.paymentIdempotencyKey.update({
        where: { store_id_idempotency_key: { store_id, idempotency_key: key } },
        data: { status: "completed", response },
      }),
    release: (store_id: number, key: string) =>
      prisma.paymentIdempotencyKey.deleteMany({ where: { store_id, idempotency_key: key, status: "processing" } }),
    transaction: <T>(work: (tx: Tx) => Promise<T>) => prisma.$transaction(work, { timeout: 20_000, maxWait: 20_000 }),
  };
}
