import type { PreparedSql } from "@pos-cloud/common/storage";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

export type SeenSignatureRepository = ReturnType<typeof seenSignatureRepository>;

export function seenSignatureRepository(prisma: PrismaClient, sql: PreparedSql) {
  return {
    /**
     * Records a signature with one INSERT: of concurrent claims of one signature exactly one wins the primary key.
     * A row that outlived its expiry still refuses (its timestamp is outside the window anyway) until it is
     * deleted. Commits without waiting for the disk, as the idempotency claim does: the money-moving commit of the
     * request that follows waits, and the log is written in order (docs/decisions.md).
     */
    async claim(signature: string, expires_at: Date): Promise<boolean> {
      const rows = await sql(Prisma.sql`
        INSERT INTO seen_signatures (signature, expires_at) VALUES (${signature}, ${expires_at})
        ON CONFLICT (signature) DO NOTHING
        RETURNING set_config('synchronous_commit', 'off', true) AS synchronous_commit`);
      return rows.length > 0;
    },
    deleteExpired: (now: Date) => prisma.seenSignature.deleteMany({ where: { expires_at: { lte: now } } }),
  };
}
