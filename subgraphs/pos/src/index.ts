import { loadTypeDefs, mergeResolvers, type SubgraphDefinition, scalarResolvers } from "@pos-cloud/common";
import { openSubgraphDatabase, type StorageOptions } from "@pos-cloud/common/storage";
import { createContext, type PosContext, type PosDeps } from "./context";
import { PrismaClient } from "./generated/prisma/client";
import { billRepository } from "./modules/bills/bill.repository";
import { billService } from "./modules/bills/bill.service";
import { billResolvers } from "./modules/bills/resolvers";
import { orderRepository } from "./modules/orders/order.repository";
import { orderService } from "./modules/orders/order.service";
import { orderResolvers } from "./modules/orders/resolvers";
import { type GatewayClientConfig, gatewayClient } from "./modules/payments/gateway.client";
import { paymentRepository } from "./modules/payments/payment.repository";
import { paymentService } from "./modules/payments/payment.service";
import { paymentResolvers } from "./modules/payments/resolvers";
import { refundRepository } from "./modules/refunds/refund.repository";
import { refundService } from "./modules/refunds/refund.service";
import { refundResolvers } from "./modules/refunds/resolvers";
import type { PortalCall } from "./modules/stores/portal.client";
import { storeAccess } from "./modules/stores/store-access.service";

export type { PosContext, PosDeps } from "./context";
export type { GatewayClientConfig } from "./modules/payments/gateway.client";
export { type PortalCall, portalClient } from "./modules/stores/portal.client";

export interface PosConfig extends StorageOptions {
  /** The portal's API, which answers for stores and staff. */
  portal: PortalCall;
  /** Tests move time through it: business days of order and bill numbers. */
  clock?: () => Date;
  /** The payment gateway and POS's partner there; the embedded platform configures it once its edge listens. */
  gateway?: GatewayClientConfig;
}

export const pos: SubgraphDefinition<PosDeps, PosContext> = {
  name: "pos",
  typeDefs: loadTypeDefs(import.meta.dirname),
  resolvers: mergeResolvers(scalarResolvers, orderResolvers, billResolvers, paymentResolvers, refundResolvers),
  createContext,
};

export async function openPos(config: PosConfig): Promise<PosDeps> {
  const db = await openSubgraphDatabase("pos", config);
  const prisma = new PrismaClient({ adapter: db.adapter });
  const clock = config.clock ?? (() => new Date());
  const access = storeAccess(config.portal);
  const orders = orderService(orderRepository(prisma), access, clock);
  const bills = billService(billRepository(prisma), orders, access, clock);
  const gateway = gatewayClient(config.gateway);
  const payments = paymentService(paymentRepository(prisma), bills, access, gateway, clock);
  return {
    db,
    prisma,
    orders,
    bills,
    gateway,
    payments,
    refunds: refundService(refundRepository(prisma), payments, access, gateway, clock),
    close: async () => {
      await prisma.$disconnect();
      await db.close();
    },
  };
}
