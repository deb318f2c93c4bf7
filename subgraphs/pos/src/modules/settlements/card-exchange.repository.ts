import type { CardSettlementExchange, Prisma, PrismaClient } from "../../generated/prisma/client";

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

export function cardExchangeRepository(prisma: PrismaClient) {
  return {
    /**
     * Takes a settlement's exchange for `until`, or null when another worker holds it, or (unless `again`) it
     * already ended matched, mismatched or failed. One statement, so two workers never both take it.
     */
    async claim(settlement_id: string, now: Date, until: Date, again: boolean): Promise<CardExchangeRow | null> {
      const rows = await prisma.$queryRaw<CardExchangeRow[]>`
        INSERT INTO pos_card_settlement_exchanges (settlement_id, status, attempts, claimed_until, updated_at)
        VALUES (${settlement_id}::uuid, 'running', 0, ${until}, ${now})
        ON CONFLICT (settlement_id) DO UPDATE
          SET status = 'running', attempts = 0, claimed_until = EXCLUDED.claimed_until, last_error = NULL,
            updated_at = EXCLUDED.updated_at
          WHERE pos_card_settlement_exchanges.claimed_until <= ${now}
            AND (${again} OR pos_card_settlement_exchanges.status = 'running')
        RETURNING *`;
      return rows[0] ?? null;
    },

    update: (settlement_id: string, data: Prisma.CardSettlementExchangeUpdateInput) =>
      prisma.cardSettlementExchange.update({ where: { settlement_id }, data }),

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
