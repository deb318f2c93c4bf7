import { Prisma, type PrismaClient } from "../../generated/prisma/client";

export type OrderRepository = ReturnType<typeof orderRepository>;

export function orderRepository(prisma: PrismaClient) {
  return {
    /**
     * Counts of orders in `status` for many stores in one statement, by store and the merchant on each order. The
     * store ids go as one array joined to the table: as an `IN` list of one parameter each (Prisma's `groupBy`)
     * PGlite spent several times as long on the statement (docs/benchmarks.md, "Hierarchy read").
     */
    countByStores: async (storeIds: number[], status: string[]) =>
      (
        await prisma.$queryRaw<{ store_id: number; merchant_id: number; count: number }[]>(
          Prisma.sql`SELECT o.store_id, o.merchant_id, count(*)::int AS count
            FROM unnest(${storeIds}::int[]) AS wanted(store_id) JOIN orders o ON o.store_id = wanted.store_id
            WHERE o.status = ANY(${status}::text[]) GROUP BY o.store_id, o.merchant_id`,
        )
      ).map(({ count, ...row }) => ({ ...row, _count: { _all: count } })),
  };
}
