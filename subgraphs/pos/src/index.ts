import { loadTypeDefs, mergeResolvers, type SubgraphDefinition, scalarResolvers } from "@pos-cloud/common";
import { outboxPublisher, outboxRepository } from "@pos-cloud/common/outbox";
import { openSubgraphDatabase, preparedSql, type StorageOptions } from "@pos-cloud/common/storage";
import { createContext, type PosContext, type PosDeps } from "./context";
import { PrismaClient } from "./generated/prisma/client";
import { posJobs } from "./jobs";
import { billRepository } from "./modules/bills/bill.repository";
import { billService } from "./modules/bills/bill.service";
import { billResolvers } from "./modules/bills/resolvers";
import { customerRepository } from "./modules/customers/customer.repository";
import { customerService } from "./modules/customers/customer.service";
import { customerResolvers } from "./modules/customers/resolvers";
import { notificationRepository } from "./modules/notifications/notification.repository";
import { notificationService } from "./modules/notifications/notification.service";
import { notificationResolvers } from "./modules/notifications/resolvers";
import { orderRepository } from "./modules/orders/order.repository";
import { orderService } from "./modules/orders/order.service";
import { orderResolvers, storeReferenceBatch } from "./modules/orders/resolvers";
import { type GatewayClientConfig, gatewayClient } from "./modules/payments/gateway.client";
import { paymentRepository } from "./modules/payments/payment.repository";
import { paymentService } from "./modules/payments/payment.service";
import { paymentsInFlight } from "./modules/payments/payments-in-flight";
import { paymentResolvers } from "./modules/payments/resolvers";
import { receiptRepository } from "./modules/receipts/receipt.repository";
import { receiptService } from "./modules/receipts/receipt.service";
import { receiptResolvers } from "./modules/receipts/resolvers";
import { refundRepository } from "./modules/refunds/refund.repository";
import { refundService } from "./modules/refunds/refund.service";
import { refundResolvers } from "./modules/refunds/resolvers";
import { cardExchangeRepository } from "./modules/settlements/card-exchange.repository";
import { type CardExchangeSettings, cardExchangeService } from "./modules/settlements/card-exchange.service";
import { settlementResolvers } from "./modules/settlements/resolvers";
import { settlementRepository } from "./modules/settlements/settlement.repository";
import { settlementService } from "./modules/settlements/settlement.service";
import type { PortalCall } from "./modules/stores/portal.client";
import { storeAccess } from "./modules/stores/store-access.service";

export type { PosContext, PosDeps } from "./context";
export type { GatewayClientConfig } from "./modules/payments/gateway.client";
export { acquirerUrlProblem } from "./modules/settlements/acquirer.client";
export {
  type CardExchangeService,
  type CardExchangeSettings,
  DEFAULT_RETRY_DELAYS_MS,
  type ExchangeOutcome,
} from "./modules/settlements/card-exchange.service";
export { type PortalCall, portalClient } from "./modules/stores/portal.client";

export interface PosConfig extends StorageOptions {
  /** The portal's API, which answers for stores and staff. */
  portal: PortalCall;
  /** Tests move time through it: business days of order and bill numbers. */
  clock?: () => Date;
  /** The payment gateway and POS's partner there; the embedded platform configures it once its edge listens. */
  gateway?: GatewayClientConfig;
  /** The card acquirer of the daily settlement exchange; configurable later (the embedded sandbox starts first). */
  acquirer?: Partial<CardExchangeSettings>;
}

export const pos: SubgraphDefinition<PosDeps, PosContext> = {
  name: "pos",
  typeDefs: loadTypeDefs(import.meta.dirname),
  resolvers: mergeResolvers(
    scalarResolvers,
    orderResolvers,
    billResolvers,
    paymentResolvers,
    refundResolvers,
    customerResolvers,
    settlementResolvers,
    notificationResolvers,
    receiptResolvers,
  ),
  referenceBatches: { Store: storeReferenceBatch },
  createContext,
};

export async function openPos(config: PosConfig): Promise<PosDeps> {
  const db = await openSubgraphDatabase("pos", config);
  const prisma = new PrismaClient({ adapter: db.adapter });
  const clock = config.clock ?? (() => new Date());
  const access = storeAccess(config.portal);
  const customers = customerService(customerRepository(prisma), access);
  const orders = orderService(orderRepository(prisma, preparedSql(db)), access, clock, customers);
  const paymentRows = paymentRepository(prisma);
  const inFlight = paymentsInFlight(paymentRows);
  const bills = billService(billRepository(prisma), orders, access, clock, inFlight);
  const gateway = gatewayClient(config.gateway);
  const receiptRows = receiptRepository(prisma);
  const payments = paymentService({
    payments: paymentRows,
    bills,
    access,
    gateway,
    clock,
    customers,
    receipts: receiptRows,
  });
  const receipts = receiptService({ receipts: receiptRows, payments, bills, orders, access });
  const outbox = outboxRepository(db);
  const settlement = settlementParts(prisma, access, clock, config.acquirer);
  return {
    db,
    prisma,
    orders,
    bills,
    customers,
    gateway,
    payments,
    refunds: refundService(refundRepository(prisma), payments, access, gateway, clock),
    receipts,
    // The store feed's events: order, bill and payment changes, written by triggers (migration pos_outbox_receipts).
    outboxPublisher: (bus) => outboxPublisher({ outbox, bus, clock }),
    jobs: (bus) =>
      posJobs({ payments, cardExchange: settlement.cardExchange }, outboxPublisher({ outbox, bus, clock })),
    ...settlement,
    close: async () => {
      await prisma.$disconnect();
      await db.close();
    },
  };
}

/** Settlements, the daily card exchange with the acquirer and the operators' notifications it leaves. */
function settlementParts(
  prisma: PrismaClient,
  access: ReturnType<typeof storeAccess>,
  clock: () => Date,
  acquirer: Partial<CardExchangeSettings> = {},
) {
  const notifications = notificationService(notificationRepository(prisma), clock);
  const exchanges = cardExchangeRepository(prisma);
  const settlements = settlementService(
    settlementRepository(prisma),
    exchanges,
    access,
    clock,
    paymentsInFlight(paymentRepository(prisma)),
  );
  const cardExchange = cardExchangeService(settlements, exchanges, notifications, clock);
  cardExchange.configure(acquirer);
  return { notifications, settlements, cardExchange };
}

/**
 * The daily card settlement exchange alone, on the pos database (a cluster worker, the operator command): it acts as
 * the system on stores found in its own rows, so it asks the portal nothing.
 */
export async function openCardExchange(config: StorageOptions & Pick<PosConfig, "clock" | "acquirer">) {
  const db = await openSubgraphDatabase("pos", config);
  const prisma = new PrismaClient({ adapter: db.adapter });
  const noPortal: PortalCall = async () => ({ errors: [{ message: "the card exchange asks the portal nothing" }] });
  const { cardExchange } = settlementParts(
    prisma,
    storeAccess(noPortal),
    config.clock ?? (() => new Date()),
    config.acquirer,
  );
  return {
    cardExchange,
    close: async () => {
      await prisma.$disconnect();
      await db.close();
    },
  };
}
