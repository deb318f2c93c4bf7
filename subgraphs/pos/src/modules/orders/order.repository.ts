import type { PrismaClient } from "../../generated/prisma/client";

export type OrderRepository = ReturnType<typeof orderRepository>;

export function orderRepository(prisma: PrismaClient) {
  return {
    countByStore: (store_id: number, status?: string[]) =>
      prisma.order.count({ where: { store_id, ...(status ? { status: { in: status } } : {}) } }),
  };
}
