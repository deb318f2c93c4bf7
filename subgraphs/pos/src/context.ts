import type { Caller } from "@pos-cloud/common";
import type { Database } from "@pos-cloud/common/storage";
import type { PrismaClient } from "./generated/prisma/client";
import type { OrderService } from "./modules/orders/order.service";

export interface PosDeps {
  db: Database;
  prisma: PrismaClient;
  orders: OrderService;
  close(): Promise<void>;
}

/** What one request sees: who calls, the services, and the request's batch loaders for entity references. */
export interface PosContext {
  caller: Caller;
  orders: OrderService;
  loaders: { stores: ReturnType<OrderService["storeLoader"]> };
}

export function createContext(deps: PosDeps, caller: Caller): PosContext {
  return { caller, orders: deps.orders, loaders: { stores: deps.orders.storeLoader(caller) } };
}
