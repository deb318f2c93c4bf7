import { Prisma, type PrismaClient } from "./generated/prisma/client";

/**
 * How long a claimed row stays with the worker that claimed it: longer than any provider call (their timeout is
 * 10 s), so two workers never ask a provider about one row at once; a worker that died gives its rows back then.
 */
export const CLAIM_LEASE_MS = 60_000;

/** Tables whose rows workers claim by their `next_poll_at`. */
export type ClaimedTable = "payment_intents" | "refunds" | "confirm_attempts";

/**
 * Claims up to `limit` rows of `table` that match `condition` and are due, oldest due first. One statement: the rows
 * are locked with `FOR UPDATE SKIP LOCKED` (rows another worker is claiming are passed over, not waited for) and
 * their `next_poll_at` moved to the end of the lease. The worker pushes it on with `backoffMs` once done.
 */
export async function claimDue(
  prisma: PrismaClient,
  table: ClaimedTable,
  condition: Prisma.Sql,
  now: Date,
  limit: number,
): Promise<string[]> {
  const name = Prisma.raw(table);
  const rows = await prisma.$queryRaw<
    { id: string }[]
  >`UPDATE ${name} SET next_poll_at = ${new Date(now.getTime() + CLAIM_LEASE_MS)}
    WHERE id IN (SELECT id FROM ${name} WHERE ${condition} AND next_poll_at <= ${now}
      ORDER BY next_poll_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  return rows.map((row) => row.id);
}

/** Sets when a claimed row is next due (`poll_attempts` is the backoff's step); raw, so `updated_at` stays. */
export const reschedule = (prisma: PrismaClient, table: ClaimedTable, id: string, attempts: number, due: Date) =>
  prisma.$executeRaw`UPDATE ${Prisma.raw(table)} SET next_poll_at = ${due}, poll_attempts = ${attempts} WHERE id = ${id}`;

/** The pause before the `attempt`-th retry (1, 2, ...): `firstMs`, doubling, at most `maxMs`. */
export const backoffMs = (attempt: number, firstMs: number, maxMs: number) =>
  Math.min(firstMs * 2 ** Math.max(0, attempt - 1), maxMs);
