import { type Page, readPage } from "@pos-cloud/common";
import { Prisma, type PrismaClient, type Settlement } from "../../generated/prisma/client";
import { type ListScope, type StoreScope, scopeCondition } from "../../list-scope";
import type { SettlementFilter } from "./settlement.inputs";
import { settlementMachine } from "./settlement.machine";

export type SettlementRepository = ReturnType<typeof settlementRepository>;
export type Tx = Prisma.TransactionClient;
export type SettlementRow = Settlement;

/** One group of what a settlement counts: payments or refunds of one method, carried over from a closed day or not. */
export interface CountedGroup {
  kind: "payment" | "refund";
  method_type: string;
  carried_over: boolean;
  amount: number;
  tip_amount: number;
  count: number;
}

/** How far back a late payment is still carried into a later day (payments and refunds never wait that long). */
export const LOOKBACK_MS = 31 * 86_400_000;

/**
 * The payments and refunds a settlement counts that no closed settlement counts yet: those completed on its own
 * business day, and those completed on an earlier day of the store that was already closed when they came (late
 * ones), which the next settlement to close takes. Payments count when completed (a refunded payment still counted
 * on its day; cash recorded offline completed when it happened, however late it arrived); refunds when they
 * succeeded, under their payment's method. A payment counts what it charged, its tip included and shown apart
 * (docs/decisions/pos.md, "Tips ride on top of the bill"). The report reads the payments and refunds
 * tables of the same database; it writes nothing to them.
 */
function counted(s: CountedDay) {
  const lookback = new Date(s.window_start.getTime() - LOOKBACK_MS);
  const closedDayHolds = (at: Prisma.Sql) => Prisma.sql`EXISTS (SELECT 1 FROM pos_settlements c
    WHERE c.store_id = ${s.store_id} AND c.status = 'closed' AND c.business_date < ${s.business_date}
      AND c.window_start <= ${at} AND ${at} < c.window_end)`;
  return Prisma.sql`
    SELECT 'payment' AS kind, p.id AS source_id, p.method_type, p.total_amount AS amount, p.tip_amount,
      p.completed_at AS occurred_at,
      p.completed_at < ${s.window_start} AS carried_over
    FROM payments p
    WHERE p.store_id = ${s.store_id} AND p.merchant_id = ${s.merchant_id}
      AND p.created_at >= ${lookback} AND p.occurred_at < ${s.window_end}
      AND p.status IN ('completed', 'refunded') AND p.completed_at < ${s.window_end}
      AND (p.completed_at >= ${s.window_start} OR ${closedDayHolds(Prisma.sql`p.completed_at`)})
      AND NOT EXISTS (SELECT 1 FROM pos_settlement_entries e WHERE e.kind = 'payment' AND e.source_id = p.id)
    UNION ALL
    SELECT 'refund', r.id, p.method_type, r.amount, 0, r.completed_at, r.completed_at < ${s.window_start}
    FROM pos_refunds r JOIN payments p ON p.id = r.payment_id
    WHERE r.store_id = ${s.store_id} AND r.merchant_id = ${s.merchant_id}
      AND r.created_at >= ${lookback} AND r.created_at < ${s.window_end}
      AND r.status = 'succeeded' AND r.completed_at < ${s.window_end}
      AND (r.completed_at >= ${s.window_start} OR ${closedDayHolds(Prisma.sql`r.completed_at`)})
      AND NOT EXISTS (SELECT 1 FROM pos_settlement_entries e WHERE e.kind = 'refund' AND e.source_id = r.id)`;
}

/** One payment or refund a day counts. */
export interface DayEntry {
  kind: "payment" | "refund";
  source_id: string;
  method_type: string;
  amount: number;
  tip_amount: number;
  occurred_at: Date;
  carried_over: boolean;
}

/** What a settlement's count needs of it: its store and its day; a day without a settlement can be counted too. */
export type CountedDay = Pick<
  SettlementRow,
  "store_id" | "merchant_id" | "business_date" | "window_start" | "window_end"
>;

type GroupRow = Omit<CountedGroup, "amount" | "tip_amount"> & {
  amount: bigint | number;
  tip_amount: bigint | number;
  settlement_id?: string;
};
const groupOf = ({ settlement_id: _, ...row }: GroupRow): CountedGroup => ({
  ...row,
  amount: Number(row.amount),
  tip_amount: Number(row.tip_amount),
});

/** Which stores and entries a day has, for the accounting export, the overview and the card exchange. */
function dayStores(prisma: PrismaClient) {
  return {
    /** The stores with a payment or a refund of any method completed within a span: the accounting export's. */
    storesWithSales: (start: Date, end: Date) =>
      prisma.$queryRaw<{ store_id: number; merchant_id: number }[]>`
        SELECT store_id, merchant_id FROM payments
          WHERE status IN ('completed', 'refunded')
            AND created_at >= ${new Date(start.getTime() - LOOKBACK_MS)} AND created_at < ${end}
            AND completed_at >= ${start} AND completed_at < ${end}
        UNION
        SELECT store_id, merchant_id FROM pos_refunds
          WHERE status = 'succeeded' AND created_at >= ${new Date(start.getTime() - LOOKBACK_MS)}
            AND created_at < ${end} AND completed_at >= ${start} AND completed_at < ${end}
        ORDER BY 1`,

    /** What a closed settlement recorded, in time order, each with the payment it is of (a refund's payment). */
    recordedEntries: (settlementId: string) =>
      prisma.$queryRaw<(DayEntry & { payment_id: string })[]>`
        SELECT e.kind, e.source_id::text, e.method_type, e.amount, e.occurred_at, e.carried_over,
          COALESCE(r.payment_id, e.source_id)::text AS payment_id
        FROM pos_settlement_entries e LEFT JOIN pos_refunds r ON e.kind = 'refund' AND r.id = e.source_id
        WHERE e.settlement_id = ${settlementId}::uuid ORDER BY e.occurred_at, e.kind, e.source_id`,

    /**
     * The stores of a scope whose day `date` may count something: payments or refunds created within the lookback
     * of its span (late ones of closed earlier days included), or a settlement of it.
     */
    scopeStoresWithSales: (scope: StoreScope, date: string, start: Date, end: Date) =>
      prisma.$queryRaw<{ store_id: number; merchant_id: number }[]>`
        SELECT p.store_id, p.merchant_id FROM payments p
          WHERE ${scopeCondition(scope, "p")}
            AND p.created_at >= ${new Date(start.getTime() - LOOKBACK_MS)} AND p.created_at < ${end}
        UNION
        SELECT r.store_id, r.merchant_id FROM pos_refunds r
          WHERE ${scopeCondition(scope, "r")}
            AND r.created_at >= ${new Date(start.getTime() - LOOKBACK_MS)} AND r.created_at < ${end}
        UNION
        SELECT s.store_id, s.merchant_id FROM pos_settlements s
          WHERE ${scopeCondition(scope, "s")} AND s.business_date = ${date}
        ORDER BY 1`,

    /** The stores with card payments or refunds completed within a span, or a settlement of `date`. */
    storesOfDay: (date: string, start: Date, end: Date) =>
      prisma.$queryRaw<{ store_id: number; merchant_id: number }[]>`
        SELECT store_id, merchant_id FROM payments
          WHERE status IN ('completed', 'refunded') AND method_type = 'CREDIT_CARD'
            AND created_at >= ${new Date(start.getTime() - LOOKBACK_MS)} AND created_at < ${end}
            AND completed_at >= ${start} AND completed_at < ${end}
        UNION
        SELECT r.store_id, r.merchant_id FROM pos_refunds r JOIN payments p ON p.id = r.payment_id
          WHERE r.status = 'succeeded' AND p.method_type = 'CREDIT_CARD'
            AND r.created_at >= ${new Date(start.getTime() - LOOKBACK_MS)} AND r.created_at < ${end}
            AND r.completed_at >= ${start} AND r.completed_at < ${end}
        UNION
        SELECT store_id, merchant_id FROM pos_settlements WHERE business_date = ${date}
        ORDER BY 1`,
  };
}

export function settlementRepository(prisma: PrismaClient) {
  return {
    ...dayStores(prisma),
    /** A new settlement, or false when the store's day has one already (one per store and business day). */
    async insert(tx: Tx, data: Prisma.SettlementCreateManyInput) {
      const { count } = await tx.settlement.createMany({ data: [data], skipDuplicates: true });
      return count === 1;
    },
    find: (id: string) => prisma.settlement.findUnique({ where: { id } }),
    findDay: (store_id: number, business_date: string) =>
      prisma.settlement.findUnique({ where: { store_id_business_date: { store_id, business_date } } }),

    /** Locks a settlement's row for the transaction and reads it: closes of one settlement go one at a time. */
    async lock(tx: Tx, id: string) {
      await tx.$queryRaw`SELECT id FROM pos_settlements WHERE id = ${id}::uuid FOR UPDATE`;
      return tx.settlement.findUniqueOrThrow({ where: { id } });
    },

    list(scope: ListScope, filter: SettlementFilter, page: Page) {
      const where = {
        ...scope,
        status: filter.status,
        business_date: { gte: filter.start_date, lte: filter.end_date },
      } satisfies Prisma.SettlementWhereInput;
      return readPage(page, {
        rows: (take) =>
          prisma.settlement.findMany({
            where,
            orderBy: [{ business_date: "desc" }, { store_id: "asc" }],
            take,
            skip: page.offset,
          }),
        total: () => prisma.settlement.count({ where }),
      });
    },

    /** What an open settlement would count if it closed now. */
    countedNow: async (s: CountedDay) =>
      (
        await prisma.$queryRaw<GroupRow[]>(Prisma.sql`SELECT kind, method_type, carried_over,
          sum(amount)::bigint AS amount, sum(tip_amount)::bigint AS tip_amount, count(*)::int AS count
          FROM (${counted(s)}) AS counted GROUP BY 1, 2, 3`)
      ).map(groupOf),

    /** What a day counts, one row per payment and refund in time order: as recorded at its close, or as of now. */
    entries: (day: CountedDay, closedSettlementId: string | null) =>
      prisma.$queryRaw<DayEntry[]>(
        closedSettlementId === null
          ? Prisma.sql`SELECT kind, source_id::text, method_type, amount, tip_amount, occurred_at, carried_over
              FROM (${counted(day)}) AS counted ORDER BY occurred_at, kind, source_id`
          : Prisma.sql`SELECT kind, source_id::text, method_type, amount, tip_amount, occurred_at, carried_over
              FROM pos_settlement_entries WHERE settlement_id = ${closedSettlementId}::uuid
              ORDER BY occurred_at, kind, source_id`,
      ),

    /** What closed settlements counted, by settlement. */
    async countedAtClose(ids: string[]) {
      const rows =
        ids.length === 0
          ? []
          : await prisma.$queryRaw<GroupRow[]>`SELECT settlement_id::text, kind, method_type, carried_over,
              sum(amount)::bigint AS amount, sum(tip_amount)::bigint AS tip_amount, count(*)::int AS count
              FROM pos_settlement_entries
              WHERE settlement_id = ANY(${ids}::uuid[]) GROUP BY 1, 2, 3, 4`;
      const bySettlement = new Map<string, CountedGroup[]>();
      for (const row of rows) {
        const list = bySettlement.get(row.settlement_id!) ?? [];
        list.push(groupOf(row));
        bySettlement.set(row.settlement_id!, list);
      }
      return bySettlement;
    },

    /**
     * Closes a locked open settlement: records every payment and refund it counts (one that another settlement
     * recorded meanwhile stays there), then its status, in the caller's transaction.
     */
    async close(
      tx: Tx,
      s: SettlementRow,
      data: Pick<Prisma.SettlementUpdateInput, "closed_at" | "closed_by" | "closed_staff_code">,
    ) {
      await tx.$executeRaw(Prisma.sql`INSERT INTO pos_settlement_entries
          (kind, source_id, settlement_id, method_type, amount, tip_amount, occurred_at, carried_over)
        SELECT kind, source_id, ${s.id}::uuid, method_type, amount, tip_amount, occurred_at, carried_over FROM (${counted(s)}) AS counted
        ON CONFLICT DO NOTHING`);
      return tx.settlement.update({
        where: { id: s.id },
        data: { ...data, status: settlementMachine.transition(s.status, "close") },
      });
    },

    transaction: <T>(work: (tx: Tx) => Promise<T>) => prisma.$transaction(work, { timeout: 20_000, maxWait: 20_000 }),
  };
}
