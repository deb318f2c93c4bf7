import type { PreparedSql } from "@pos-cloud/common/storage";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>;

export interface IdempotencyClaim {
  client_partner_id: number;
  idempotency_key: string;
  request_hash: string;
  now: Date;
  expires_at: Date;
  /** A claim still in progress from before this was abandoned (its process or connection died): taken over. */
  abandoned_before: Date;
}

const completion = (id: number, response_sealed: string) =>
  Prisma.sql`UPDATE idempotency_keys SET status = 'completed', response_sealed = ${response_sealed} WHERE id = ${id}`;

export function idempotencyRepository(prisma: PrismaClient, sql: PreparedSql) {
  return {
    /**
     * Claims a key with one INSERT: concurrent claims lose on the unique (client_partner_id, idempotency_key), so
     * exactly one wins. An expired row, or an abandoned claim, is taken over in the same statement, as if it were
     * not there. Returns the claimed row's id, or null when someone else holds the key. The claim commits without
     * waiting for the disk; the work's own commit, which waits, makes it durable too (docs/decisions.md).
     */
    async claim(claim: IdempotencyClaim): Promise<number | null> {
      const rows = await sql<{ id: number }>(Prisma.sql`
        INSERT INTO idempotency_keys (client_partner_id, idempotency_key, request_hash, status, created_at, expires_at)
        VALUES (${claim.client_partner_id}, ${claim.idempotency_key}, ${claim.request_hash}, 'in_progress',
                ${claim.now}, ${claim.expires_at})
        ON CONFLICT (client_partner_id, idempotency_key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, status = 'in_progress', response_sealed = NULL,
              created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
          WHERE idempotency_keys.expires_at <= ${claim.now}
             OR (idempotency_keys.status = 'in_progress' AND idempotency_keys.created_at <= ${claim.abandoned_before})
        RETURNING id, set_config('synchronous_commit', 'off', true) AS synchronous_commit`);
      return rows[0]?.id ?? null;
    },
    find: (client_partner_id: number, idempotency_key: string) =>
      prisma.idempotencyKey.findUnique({
        where: { client_partner_id_idempotency_key: { client_partner_id, idempotency_key } },
      }),
    /** Stores the response in the transaction of the work it answers for. */
    complete: (tx: Prisma.TransactionClient, id: number, response_sealed: string) =>
      tx.$executeRaw(completion(id, response_sealed)),
    /** The same, as a statement for work that is one SQL statement. */
    completion,
    /** Frees a key whose work failed, so the client may retry with the same key. */
    release: (id: number) => prisma.idempotencyKey.deleteMany({ where: { id, status: "in_progress" } }),
    deleteExpired: (now: Date) => prisma.idempotencyKey.deleteMany({ where: { expires_at: { lte: now } } }),
  };
}
