import type { PrismaClient } from "../../generated/prisma/client";

export type OrderRepository = ReturnType<typeof orderRepository>;

export function orderRepository(prisma: PrismaClient) {
  return {
    /** Counts of orders in `status` for many stores in one statement, by store and the merchant on each order. */
    countByStores: (storeIds: number[], status: string[]) =>
      prisma.order.groupBy({
        by: ["store_id", "merchant_id"],
        where: { store_id: { in: storeIds }, status: { in: status } },
        _count: { _all: true },
      }),
  };
}
