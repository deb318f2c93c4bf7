import type { Caller, Database } from "@pos-cloud/common";
import type { PrismaClient } from "./generated/prisma/client";
import type { OrderService } from "./modules/orders/order.service";

export interface PosDeps {
  db: Database;
  prisma: PrismaClient;
  orders: OrderService;
  close(): Promise<void>;
}

export interface PosContext {
  caller: Caller;
  orders: OrderService;
}

export function createContext(deps: PosDeps, caller: Caller): PosContext {
  return { caller, orders: deps.orders };
}
