import { type CursorPage, readPageByTime, type StoreCount } from "@pos-cloud/common";
import type { PreparedSql } from "@pos-cloud/common/storage";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import type { ListScope } from "../../list-scope";
import type { OrderFilter } from "./order.inputs";

export type OrderRepository = ReturnType<typeof orderRepository>;
export type Tx = Prisma.TransactionClient;

const withItems = { items: { orderBy: { sequence: "asc" } } } satisfies Prisma.OrderInclude;
export type OrderRow = Prisma.OrderGetPayload<{ include: typeof withItems }>;
export type ItemData = Omit<Prisma.OrderItemCreateManyInput, "order_id">;

/** Locks an order's row for the transaction and reads it, so changes to one order are made one after another. */
export async function lockOrder(tx: Tx, id: string): Promise<OrderRow | null> {
  await tx.$queryRaw`SELECT id FROM orders WHERE id = ${id}::uuid FOR UPDATE`;
  return tx.order.findUnique({ where: { id }, include: withItems });
}

export function orderRepository(prisma: PrismaClient, sql: PreparedSql) {
  /** The orders `where` selects, newest first, one page. */
  const pageOfOrders = (where: Prisma.OrderWhereInput, page: CursorPage) =>
    readPageByTime(page, "asc", {
      rows: (take, after) =>
        prisma.order.findMany({
          where: { AND: [where, after] },
          include: withItems,
          orderBy: [{ created_at: "desc" }, { id: "asc" }],
          take,
          skip: page.offset,
        }),
      total: () => prisma.order.count({ where }),
    });

  return {
    /**
     * Orders in `status` per store for many stores in one statement, by store and the merchant on each order:
     * `[store_id, merchant_id, count]`. The store ids go as one array parameter; the counts come back as one JSON
     * value, because PGlite parses a result row by row in JavaScript and 400 rows cost about twice one JSON document
     * (docs/benchmarks.md, "Hierarchy read").
     */
    countByStores: async (storeIds: number[], status: string[]) =>
      (
        await sql<{ counts: StoreCount[] }>(
          Prisma.sql`SELECT coalesce(json_agg(json_build_array(store_id, merchant_id, count)), '[]') AS counts
            FROM (SELECT store_id, merchant_id, count(*)::int AS count FROM orders
              WHERE store_id = ANY(${storeIds}::int[]) AND status = ANY(${status}::text[])
              GROUP BY store_id, merchant_id) c`,
        )
      )[0]!.counts,

    /**
     * A new order and its items, numbered within the transaction that writes them; `written` runs in the same
     * transaction (the Idempotency-Key's answer).
     */
    create: (
      order: (tx: Tx) => Promise<Omit<Prisma.OrderUncheckedCreateInput, "items">>,
      items: ItemData[],
      written: (tx: Tx, row: OrderRow) => Promise<void>,
    ) =>
      prisma.$transaction(async (tx) => {
        const row = await tx.order.create({
          data: { ...(await order(tx)), items: { create: items } },
          include: withItems,
        });
        await written(tx, row);
        return row;
      }),

    find: (id: string) => prisma.order.findUnique({ where: { id }, include: withItems }),

    list(scope: ListScope, filter: OrderFilter, page: CursorPage) {
      const where = {
        ...scope,
        status: filter.status,
        table_number: filter.table_number,
        device_id: filter.device_id,
        created_at: { gte: filter.from, lt: filter.to },
      } satisfies Prisma.OrderWhereInput;
      return pageOfOrders(where, page);
    },

    /** A customer's orders of its merchant, newest first, taken in [from, to). */
    listOfCustomer(
      customer: { merchant_id: number; customer_id: string },
      range: { from?: Date; to?: Date },
      page: CursorPage,
    ) {
      const where = { ...customer, created_at: { gte: range.from, lt: range.to } } satisfies Prisma.OrderWhereInput;
      return pageOfOrders(where, page);
    },

    /**
     * Changes an order under a lock on its row: `decide` sees the order as it is now and returns the change (the
     * new items replace the old ones), or throws to change nothing.
     */
    change: (id: string, decide: (order: OrderRow) => { data: Prisma.OrderUncheckedUpdateInput; items?: ItemData[] }) =>
      prisma.$transaction(async (tx) => {
        const order = await lockOrder(tx, id);
        if (!order) return null;
        const { data, items } = decide(order);
        if (items) {
          await tx.orderItem.deleteMany({ where: { order_id: id } });
          await tx.orderItem.createMany({ data: items.map((item) => ({ ...item, order_id: id })) });
        }
        return tx.order.update({ where: { id }, data, include: withItems });
      }),

    /** Moves every order a bill collects (`bill_id`) that is in `from`, in the caller's transaction. */
    moveOfBill: (tx: Tx, billId: string, from: string[], data: Prisma.OrderUncheckedUpdateManyInput) =>
      tx.order.updateMany({ where: { bill_id: billId, status: { in: from } }, data }),
    /** The orders of a cancelled bill back to `to`, without the bill's tax, in the caller's transaction. */
    reopenOfBill: (tx: Tx, billId: string, from: string[], to: string) =>
      tx.$executeRaw`UPDATE orders SET status = ${to}, bill_id = NULL, tax_amount = 0,
        total_amount = subtotal - discount_amount, updated_at = now()
        WHERE bill_id = ${billId}::uuid AND status = ANY(${from}::text[])`,
    /** Points the orders of several bills at another bill (the combined one), in the caller's transaction. */
    rebill: (tx: Tx, fromBillIds: string[], toBillId: string) =>
      tx.order.updateMany({ where: { bill_id: { in: fromBillIds } }, data: { bill_id: toBillId } }),
    update: (tx: Tx, id: string, data: Prisma.OrderUncheckedUpdateInput) =>
      tx.order.update({ where: { id }, data, include: withItems }),
    itemsOfBill: (tx: Tx, billId: string) =>
      tx.orderItem.findMany({
        where: { order: { bill_id: billId } },
        orderBy: [{ order: { created_at: "asc" } }, { sequence: "asc" }],
      }),
  };
}
