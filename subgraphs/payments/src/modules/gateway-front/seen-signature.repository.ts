import type { PreparedSql } from "@pos-cloud/common/storage";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

export type SeenSignatureRepository = ReturnType<typeof seenSignatureRepository>;

export function seenSignatureRepository(prisma: PrismaClient, sql: PreparedSql) {
  return {
    /**
     * Records a signature with one INSERT: of concurrent claims of one signature exactly one wins the primary key.
     * A later claim with the same (non-null) key's hash passes too (the no-op update returns the row): an exact
     * replay, answered by the key. A row that outlived its expiry still refuses (its timestamp is outside the window
     * anyway) until it is deleted. Commits without waiting for the disk, as the idempotency claim does: the money-moving commit of the
     * request that follows waits, and the log is written in order (docs/decisions.md).
     */
    async claim(signature: string, expires_at: Date, idempotency_key: string | null): Promise<boolean> {
      const rows = await sql(Prisma.sql`
        INSERT INTO seen_signatures (signature, expires_at, idempotency_key)
        VALUES (${signature}, ${expires_at}, ${idempotency_key})
        ON CONFLICT (signature) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key
          WHERE seen_signatures.idempotency_key = EXCLUDED.idempotency_key
        RETURNING set_config('synchronous_commit', 'off', true) AS synchronous_commit`);
      return rows.length > 0;
    },
    deleteExpired: (now: Date) => prisma.seenSignature.deleteMany({ where: { expires_at: { lte: now } } }),
  };
}
