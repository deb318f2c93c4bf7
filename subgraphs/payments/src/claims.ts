import { claimDue as claimTasks, onPrisma, type TaskCensus, type TaskKind } from "@pos-cloud/common/tasks";
import { Prisma, type PrismaClient } from "./generated/prisma/client";

/**
 * How long a claimed row stays with the worker that claimed it: longer than any provider call (their timeout is
 * 10 s), so two workers never ask a provider about one row at once; a worker that died gives its rows back then.
 */
export const CLAIM_LEASE_MS = 60_000;

/** Tables whose rows workers claim by their `next_poll_at`, and the task kind each holds. */
const kinds = {
  payment_intents: "provider_poll",
  refunds: "refund_recovery",
  confirm_attempts: "confirm_recovery",
} satisfies Record<string, TaskKind>;
export type ClaimedTable = keyof typeof kinds;

const tasksOf = (table: ClaimedTable) => ({ kind: kinds[table], table, key: "id", due: "next_poll_at" });

/** For the task gauges: the recoveries' rows, pending until answered; they never give up. */
export const recoveryCensuses: TaskCensus[] = (["refunds", "confirm_attempts"] as const).map((table) => ({
  table: tasksOf(table),
  pending: Prisma.sql`status = 'pending'`,
}));

/**
 * Claims up to `limit` rows of `table` that match `condition` and are due, oldest due first, until the lease's end
 * (the task queue's `claimDue`). The worker pushes `next_poll_at` on by the kind's retry policy once done.
 */
export async function claimDue(
  prisma: PrismaClient,
  table: ClaimedTable,
  condition: Prisma.Sql,
  now: Date,
  limit: number,
): Promise<string[]> {
  const lease = { where: condition, now, leaseUntil: new Date(now.getTime() + CLAIM_LEASE_MS), limit };
  const rows = await claimTasks<{ id: string }>(onPrisma(prisma), tasksOf(table), lease);
  return rows.map((row) => row.id);
}

/** Sets when a claimed row is next due (`poll_attempts` is the retry policy's step); raw, so `updated_at` stays. */
export const reschedule = (prisma: PrismaClient, table: ClaimedTable, id: string, attempts: number, due: Date) =>
  prisma.$executeRaw`UPDATE ${Prisma.raw(table)} SET next_poll_at = ${due}, poll_attempts = ${attempts} WHERE id = ${id}`;
