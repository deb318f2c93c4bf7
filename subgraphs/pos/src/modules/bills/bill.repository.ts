import { type CursorPage, readPageByTime } from "@pos-cloud/common";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { ListScope } from "../../list-scope";
import type { BillFilter } from "./bill.inputs";
import { billMachine } from "./bill.machine";

export type BillRepository = ReturnType<typeof billRepository>;
export type Tx = Prisma.TransactionClient;

const withSplits = { splits: { orderBy: { sequence: "asc" } } } satisfies Prisma.BillInclude;
export type BillRow = Prisma.BillGetPayload<{ include: typeof withSplits }>;

export function billRepository(prisma: PrismaClient) {
  return {
    transaction: <T>(work: (tx: Tx) => Promise<T>) => prisma.$transaction(work),

    /** Locks a bill's row for the transaction and reads it: changes and payments of one bill go one at a time. */
    async lock(tx: Tx, id: string): Promise<BillRow | null> {
      await tx.$queryRaw`SELECT id FROM bills WHERE id = ${id}::uuid FOR UPDATE`;
      return tx.bill.findUnique({ where: { id }, include: withSplits });
    },

    /**
     * The ids, in order, of the store's open bills that could be combined for these tables: not split, nothing paid,
     * not already combined away.
     */
    async combinable(tx: Tx, place: { store_id: number; merchant_id: number }, tables: string[]) {
      const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM bills
        WHERE store_id = ${place.store_id} AND merchant_id = ${place.merchant_id} AND status = ANY(${billMachine.fromStates("combine")}::text[])
          AND NOT is_split AND deleted_at IS NULL AND table_numbers && ${tables}::text[]
        ORDER BY id`;
      return rows.map((row) => row.id);
    },

    /**
     * Locks `combinable` bills in id order (so two combines cannot deadlock) and reads those still combinable: one
     * another combine took meanwhile is no longer pending once the lock is granted, so it is not returned.
     */
    async lockCombinable(tx: Tx, ids: string[]) {
      await tx.$queryRaw`SELECT id FROM bills WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE`;
      return tx.bill.findMany({
        where: {
          id: { in: ids },
          status: { in: billMachine.fromStates("combine") },
          is_split: false,
          deleted_at: null,
        },
        include: withSplits,
        orderBy: { created_at: "asc" },
      });
    },

    find: (id: string) => prisma.bill.findUnique({ where: { id }, include: withSplits }),

    list(scope: ListScope, filter: BillFilter, page: CursorPage) {
      const where = {
        ...scope,
        deleted_at: null,
        status: filter.status,
        order_id: filter.order_id,
        table_numbers: filter.table_number ? { has: filter.table_number } : undefined,
        created_at: { gte: filter.from, lt: filter.to },
      } satisfies Prisma.BillWhereInput;
      return readPageByTime(page, "asc", {
        rows: (take, after) =>
          prisma.bill.findMany({
            where: { AND: [where, after] },
            include: withSplits,
            orderBy: [{ created_at: "desc" }, { id: "asc" }],
            take,
            skip: page.offset,
          }),
        total: () => prisma.bill.count({ where }),
      });
    },

    create: (tx: Tx, data: Prisma.BillUncheckedCreateInput) => tx.bill.create({ data, include: withSplits }),
    update: (tx: Tx, id: string, data: Prisma.BillUncheckedUpdateInput) =>
      tx.bill.update({ where: { id }, data, include: withSplits }),
    /** Closes the sources of a combined bill: cancelled, soft-deleted, pointing at the bill that replaced them. */
    closeCombined: (tx: Tx, ids: string[], combinedId: string, at: Date) =>
      tx.bill.updateMany({
        where: { id: { in: ids } },
        data: {
          status: billMachine.target("combine").to,
          cancelled_at: at,
          deleted_at: at,
          combined_into_id: combinedId,
        },
      }),
    createSplits: (tx: Tx, billId: string, splits: { amount: number; item_ids: string[] }[]) =>
      tx.billSplit.createMany({
        data: splits.map((split, i) => ({ bill_id: billId, sequence: i + 1, ...split })),
      }),
    updateSplit: (tx: Tx, id: string, data: Prisma.BillSplitUncheckedUpdateInput) =>
      tx.billSplit.update({ where: { id }, data }),
  };
}
