import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import { type StoreScope, scopeCondition } from "../../list-scope";

/** Payments of a scope within a span, by what became of them: one row per outcome. */
export interface OutcomeRow {
  outcome: "succeeded" | "failed" | "declined" | "expired" | "in_flight";
  count: number;
}

/** A store's payments of a span that did not succeed, and all it attempted. */
export interface StoreFailureRow {
  store_id: number;
  failed_count: number;
  attempt_count: number;
}

/**
 * What a failed payment's failure code says happened: the card app's or the acquirer's `declined`, the gateway's
 * `expired` (an intent nobody paid in time), anything else a failure.
 */
const outcomeOf = Prisma.sql`CASE
  WHEN p.status IN ('completed', 'refunded') THEN 'succeeded'
  WHEN p.status IN ('pending', 'processing') THEN 'in_flight'
  WHEN p.failure_code = 'declined' THEN 'declined'
  WHEN p.failure_code = 'expired' THEN 'expired'
  ELSE 'failed' END`;

/** Figures over many stores' payments, aggregated in SQL: by hour, by outcome, by store. */
export function paymentFiguresRepository(prisma: PrismaClient) {
  return {
    /** Payments completed within [start, end), by the hour (0–23) of their completion in `timeZone`, tips included. */
    byHour: async (scope: StoreScope, start: Date, end: Date, timeZone: string) =>
      (
        await prisma.$queryRaw<{ hour: number; amount: bigint; count: number }[]>`
          SELECT extract(hour FROM p.completed_at AT TIME ZONE ${timeZone})::int AS hour,
            sum(p.total_amount)::bigint AS amount, count(*)::int AS count
          FROM payments p
          WHERE ${scopeCondition(scope, "p")} AND p.status IN ('completed', 'refunded')
            AND p.completed_at >= ${start} AND p.completed_at < ${end}
          GROUP BY 1`
      ).map((row) => ({ ...row, amount: Number(row.amount) })),

    /** Payments that happened within [start, end) (`occurred_at`), counted by outcome. */
    outcomes: (scope: StoreScope, start: Date, end: Date) =>
      prisma.$queryRaw<OutcomeRow[]>`
        SELECT ${outcomeOf} AS outcome, count(*)::int AS count
        FROM payments p
        WHERE ${scopeCondition(scope, "p")} AND p.occurred_at >= ${start} AND p.occurred_at < ${end}
        GROUP BY 1`,

    /** The stores with the most payments that did not succeed within [start, end), most first. */
    failingStores: (scope: StoreScope, start: Date, end: Date, limit: number) =>
      prisma.$queryRaw<StoreFailureRow[]>`
        SELECT p.store_id, count(*) FILTER (WHERE p.status = 'failed')::int AS failed_count,
          count(*)::int AS attempt_count
        FROM payments p
        WHERE ${scopeCondition(scope, "p")} AND p.occurred_at >= ${start} AND p.occurred_at < ${end}
        GROUP BY p.store_id
        HAVING count(*) FILTER (WHERE p.status = 'failed') > 0
        ORDER BY failed_count DESC, p.store_id
        LIMIT ${limit}`,
  };
}

export type PaymentFiguresRepository = ReturnType<typeof paymentFiguresRepository>;
