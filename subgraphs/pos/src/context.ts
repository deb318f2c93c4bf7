import type { Caller } from "@pos-cloud/common";
import type { Database } from "@pos-cloud/common/storage";
import type { PrismaClient } from "./generated/prisma/client";
import type { BillService } from "./modules/bills/bill.service";
import type { OrderService } from "./modules/orders/order.service";
import type { GatewayClient } from "./modules/payments/gateway.client";
import type { PaymentService } from "./modules/payments/payment.service";
import type { RefundService } from "./modules/refunds/refund.service";

export interface PosDeps {
  db: Database;
  prisma: PrismaClient;
  orders: OrderService;
  /** Bills, and `applyPayment` for the POS payments that pay them. */
  bills: BillService;
  /** POS's client of the payment gateway's `/v1` API. */
  gateway: GatewayClient;
  /** Payments, and `consume` for the gateway events that settle QR payments. */
  payments: PaymentService;
  refunds: RefundService;
  close(): Promise<void>;
}

/** What one request sees: who calls, the services, and the request's batch loaders for entity references. */
export interface PosContext {
  caller: Caller;
  orders: OrderService;
  bills: BillService;
  payments: PaymentService;
  refunds: RefundService;
  loaders: { stores: ReturnType<OrderService["storeLoader"]> };
}

export function createContext(deps: PosDeps, caller: Caller): PosContext {
  return {
    caller,
    orders: deps.orders,
    bills: deps.bills,
    payments: deps.payments,
    refunds: deps.refunds,
    loaders: { stores: deps.orders.storeLoader(caller) },
  };
}
