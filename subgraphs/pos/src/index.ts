import { loadTypeDefs, mergeResolvers, type SubgraphDefinition, scalarResolvers } from "@pos-cloud/common";
import { openSubgraphDatabase, type StorageOptions } from "@pos-cloud/common/storage";
import { createContext, type PosContext, type PosDeps } from "./context";
import { PrismaClient } from "./generated/prisma/client";
import { orderRepository } from "./modules/orders/order.repository";
import { orderService } from "./modules/orders/order.service";
import { orderResolvers } from "./modules/orders/resolvers";

export type { PosContext, PosDeps } from "./context";

export type PosConfig = StorageOptions;

export const pos: SubgraphDefinition<PosDeps, PosContext> = {
  name: "pos",
  typeDefs: loadTypeDefs(import.meta.dirname),
  resolvers: mergeResolvers(scalarResolvers, orderResolvers),
  createContext,
};

export async function openPos(config: PosConfig): Promise<PosDeps> {
  const db = await openSubgraphDatabase("pos", config);
  const prisma = new PrismaClient({ adapter: db.adapter });
  return {
    db,
    prisma,
    orders: orderService(orderRepository(prisma)),
    close: async () => {
      await prisma.$disconnect();
      await db.close();
    },
  };
}
