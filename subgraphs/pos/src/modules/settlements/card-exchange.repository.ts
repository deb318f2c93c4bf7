import { type AuditChange, auditOutboxRow, type ResolutionWrite } from "@pos-cloud/common";
import { claimDue, onPrisma, type TaskCensus, type TaskTable } from "@pos-cloud/common/tasks";
import { type CardSettlementExchange, Prisma, type PrismaClient } from "../../generated/prisma/client";

export type CardExchangeRepository = ReturnType<typeof cardExchangeRepository>;
export type CardExchangeRow = CardSettlementExchange;

/** A card transaction of a closed settlement, as the acquirer's upload lists it. */
export interface CardEntry {
  kind: "payment" | "refund";
  source_id: string;
  amount: number;
  occurred_at: Date;
  approval_code: string | null;
}

/** A failed exchange due again is a `card_exchange` task; its claim is the exchange's own `claimed_until`. */
const retryTasks: TaskTable = {
  kind: "card_exchange",
  table: "pos_card_settlement_exchanges",
  key: "settlement_id",
  due: "next_attempt_at",
  lockedUntil: "claimed_until",
};

/** For the task gauges: a retry's last failure leaves the exchange `failed`. */
export const cardExchangeCensus: TaskCensus = {
  table: retryTasks,
  pending: Prisma.sql`status = 'running' AND next_attempt_at IS NOT NULL`,
  dead: Prisma.sql`status = 'failed'`,
};

/** An exchange due again, with the settlement's store and day it is about. */
export interface DueExchange {
  settlement_id: string;
  attempts: number;
  store_id: number;
  merchant_id: number;
  business_date: string;
  timezone: string;
}

export function cardExchangeRepository(prisma: PrismaClient) {
  return {
    /**
     * Takes a settlement's exchange for `until`, or null when another worker holds it, or (unless `again`) it
     * already ended matched, mismatched or failed, or waits for its retry. One statement, so two workers never both
     * take it. Taken again, it compares a new file: a resolution of the last one no longer stands.
     */
    async claim(settlement_id: string, now: Date, until: Date, again: boolean): Promise<CardExchangeRow | null> {
      const rows = await prisma.$queryRaw<CardExchangeRow[]>`
        INSERT INTO pos_card_settlement_exchanges (settlement_id, status, attempts, claimed_until, updated_at)
        VALUES (${settlement_id}::uuid, 'running', 0, ${until}, ${now})
        ON CONFLICT (settlement_id) DO UPDATE
          SET status = 'running', attempts = 0, claimed_until = EXCLUDED.claimed_until, last_error = NULL,
            next_attempt_at = NULL, resolved_at = NULL, resolved_by = NULL, resolution_note = NULL,
            updated_at = EXCLUDED.updated_at
          WHERE pos_card_settlement_exchanges.claimed_until <= ${now}
            AND (${again} OR (pos_card_settlement_exchanges.status = 'running'
              AND pos_card_settlement_exchanges.next_attempt_at IS NULL))
        RETURNING *`;
      return rows[0] ?? null;
    },

    /** Up to 20 due retries, each taken by one process until `leaseUntil` (longer than an attempt), oldest first. */
    async claimDue(now: Date, leaseUntil: Date): Promise<DueExchange[]> {
      const claimed = await claimDue<Pick<CardExchangeRow, "settlement_id" | "attempts">>(
        onPrisma(prisma),
        retryTasks,
        {
          where: Prisma.sql`status = 'running'`,
          now,
          leaseUntil,
          limit: 20,
          returning: Prisma.sql`task.settlement_id, task.attempts`,
        },
      );
      const days = await prisma.settlement.findMany({
        where: { id: { in: claimed.map((row) => row.settlement_id) } },
        select: { id: true, store_id: true, merchant_id: true, business_date: true, timezone: true },
      });
      return days.map(({ id, ...day }) => ({
        settlement_id: id,
        attempts: claimed.find((row) => row.settlement_id === id)!.attempts,
        ...day,
      }));
    },

    update: (settlement_id: string, data: Prisma.CardSettlementExchangeUpdateInput) =>
      prisma.cardSettlementExchange.update({ where: { settlement_id }, data }),

    /**
     * Closes a mismatch no one resolved yet, with its audit record in the same transaction; null when the exchange is
     * not such a mismatch (any more).
     */
    resolve: (settlement_id: string, resolution: ResolutionWrite, audit: AuditChange) =>
      prisma.$transaction(async (tx) => {
        const where = { settlement_id, status: "mismatch", resolved_at: null };
        const { count } = await tx.cardSettlementExchange.updateMany({ where, data: resolution });
        if (count === 0) return null;
        await tx.outboxEvent.create({ data: auditOutboxRow(audit, resolution.resolved_at) });
        return tx.cardSettlementExchange.findUniqueOrThrow({ where: { settlement_id } });
      }),

    /** The mismatched exchanges no one resolved, of a merchant's settlements (every one's when absent), or a store's. */
    async openMismatchCount(scope: { merchant_id?: number; store_id?: number }) {
      const [{ count }] = await prisma.$queryRaw<[{ count: number }]>`
        SELECT count(*)::int AS count
        FROM pos_card_settlement_exchanges x JOIN pos_settlements s ON s.id = x.settlement_id
        WHERE x.status = 'mismatch' AND x.resolved_at IS NULL
          AND (${scope.merchant_id ?? null}::int IS NULL OR s.merchant_id = ${scope.merchant_id ?? null}::int)
          AND (${scope.store_id ?? null}::int IS NULL OR s.store_id = ${scope.store_id ?? null}::int)`;
      return count;
    },

    find: (settlement_id: string) => prisma.cardSettlementExchange.findUnique({ where: { settlement_id } }),
    findMany: (ids: string[]) => prisma.cardSettlementExchange.findMany({ where: { settlement_id: { in: ids } } }),

    /** The card payments and refunds a closed settlement counted, in time order, with the payments' approval codes. */
    cardEntries: (settlement_id: string) =>
      prisma.$queryRaw<CardEntry[]>`
        SELECT e.kind, e.source_id::text, e.amount, e.occurred_at, p.approval_code
        FROM pos_settlement_entries e
          LEFT JOIN pos_refunds r ON e.kind = 'refund' AND r.id = e.source_id
          JOIN payments p ON p.id = CASE WHEN e.kind = 'payment' THEN e.source_id ELSE r.payment_id END
        WHERE e.settlement_id = ${settlement_id}::uuid AND e.method_type = 'CREDIT_CARD'
        ORDER BY e.occurred_at, e.kind, e.source_id`,
  };
}
