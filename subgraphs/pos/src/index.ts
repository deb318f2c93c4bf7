import { loadTypeDefs, mergeResolvers, type SubgraphDefinition, scalarResolvers, secretBox } from "@pos-cloud/common";
import { type MessageOutbox, type MessageTransport, messageCensus, messageOutbox } from "@pos-cloud/common/messages";
import { outboxCensus, outboxPublisher, outboxRepository } from "@pos-cloud/common/outbox";
import {
  type Database,
  markTransactions,
  openSubgraphDatabase,
  preparedSql,
  type StorageOptions,
} from "@pos-cloud/common/storage";
import { createContext, type PosContext, type PosDeps } from "./context";
import { PrismaClient } from "./generated/prisma/client";
import { posJobs } from "./jobs";
import {
  accountingExportRepository,
  exportDeliveryCensus,
} from "./modules/accounting-exports/accounting-export.repository";
import { accountingExportService } from "./modules/accounting-exports/accounting-export.service";
import { accountingExportResolvers } from "./modules/accounting-exports/resolvers";
import { billRepository } from "./modules/bills/bill.repository";
import { billService } from "./modules/bills/bill.service";
import { billResolvers } from "./modules/bills/resolvers";
import { customerRepository } from "./modules/customers/customer.repository";
import { customerService } from "./modules/customers/customer.service";
import { customerResolvers } from "./modules/customers/resolvers";
import { storeKeyRepository } from "./modules/idempotency/idempotency.repository";
import { storeIdempotency } from "./modules/idempotency/idempotency.service";
import { notificationRepository } from "./modules/notifications/notification.repository";
import { notificationService } from "./modules/notifications/notification.service";
import { notificationResolvers } from "./modules/notifications/resolvers";
import { orderRepository } from "./modules/orders/order.repository";
import { orderService } from "./modules/orders/order.service";
import { orderResolvers, storeReferenceBatch } from "./modules/orders/resolvers";
import { overviewService } from "./modules/overview/overview.service";
import { overviewResolvers } from "./modules/overview/resolvers";
import { type GatewayClientConfig, gatewayClient } from "./modules/payments/gateway.client";
import { gatewayCredentialRepository } from "./modules/payments/gateway-credential.repository";
import { gatewayCredentialService } from "./modules/payments/gateway-credential.service";
import { interruptedPaymentCensus, paymentRepository } from "./modules/payments/payment.repository";
import { paymentService } from "./modules/payments/payment.service";
import { paymentFiguresRepository } from "./modules/payments/payment-figures.repository";
import { paymentFigures } from "./modules/payments/payment-figures.service";
import { paymentResolvers } from "./modules/payments/resolvers";
import { STALE_AFTER_MS } from "./modules/payments/workflows/recover-interrupted-payments";
import { receiptRepository } from "./modules/receipts/receipt.repository";
import { receiptService } from "./modules/receipts/receipt.service";
import { receiptResolvers } from "./modules/receipts/resolvers";
import { refundRepository, staleRefundCensus } from "./modules/refunds/refund.repository";
import { refundService } from "./modules/refunds/refund.service";
import { refundResolvers } from "./modules/refunds/resolvers";
import { cardExchangeCensus, cardExchangeRepository } from "./modules/settlements/card-exchange.repository";
import { type CardExchangeSettings, cardExchangeService } from "./modules/settlements/card-exchange.service";
import { settlementResolvers } from "./modules/settlements/resolvers";
import { settlementRepository } from "./modules/settlements/settlement.repository";
import { settlementService } from "./modules/settlements/settlement.service";
import type { PortalCall } from "./modules/stores/portal.client";
import { storeAccess } from "./modules/stores/store-access.service";
import { paymentsInFlight } from "./payments-in-flight";
import { saleTimes } from "./sale-time";

export type { PosContext, PosDeps } from "./context";
export type { GatewayClientConfig } from "./modules/payments/gateway.client";
export { acquirerUrlProblem } from "./modules/settlements/acquirer.client";
export type { CardExchangeService, CardExchangeSettings } from "./modules/settlements/card-exchange.service";
export type { ExchangeOutcome } from "./modules/settlements/store-exchange.service";
export { type PortalCall, portalClient } from "./modules/stores/portal.client";

export interface PosConfig extends StorageOptions {
  /** The portal's API, which answers for stores and staff. */
  portal: PortalCall;
  /** Tests move time through it: business days of order and bill numbers. */
  clock?: () => Date;
  /** How old a sale recorded offline may be when it arrives (OFFLINE_SALES_WINDOW_HOURS); 72 hours unless set. */
  offlineSalesWindowHours?: number;
  /**
   * The payment gateway and POS's partner there, from the process's environment: the first credential, kept in POS's
   * database unless one is there already (the embedded platform configures it once its edge listens).
   */
  gateway?: GatewayClientConfig;
  /** Seals POS's gateway credential in its database; without it POS cannot sign gateway calls. */
  masterKey?: Buffer;
  /** The card acquirer of the daily settlement exchange; configurable later (the embedded sandbox starts first). */
  acquirer?: Partial<CardExchangeSettings>;
  /**
   * Carries the exchange's failure e-mails and customers' e-mail receipts (`messageTransport`), through the POS
   * message outbox; without one every attempt fails (and ends as an alert).
   */
  messages?: { transport: MessageTransport; retryDelaysMs?: number[] };
}

const noTransport: MessageTransport = () =>
  Promise.reject(new Error("this process has no mail server or SMS relay configured"));

/** The POS message outbox on its database. */
const posMessages = (db: Database, config: Pick<PosConfig, "messages" | "clock">) =>
  messageOutbox({
    db,
    transport: config.messages?.transport ?? noTransport,
    clock: config.clock,
    retryDelaysMs: config.messages?.retryDelaysMs,
  });

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
    accountingExportResolvers,
    overviewResolvers,
  ),
  referenceBatches: { Store: storeReferenceBatch },
  createContext,
};

export async function openPos(config: PosConfig): Promise<PosDeps> {
  const db = await openSubgraphDatabase("pos", config);
  const prisma = markTransactions(new PrismaClient({ adapter: db.adapter }));
  const clock = config.clock ?? (() => new Date());
  const access = storeAccess(config.portal);
  const saleTime = saleTimes(clock, config.offlineSalesWindowHours);
  const customers = customerService(customerRepository(prisma), access);
  const keys = storeIdempotency(storeKeyRepository(prisma), clock, STALE_AFTER_MS);
  const orders = orderService(orderRepository(prisma, preparedSql(db)), access, clock, customers, saleTime, keys);
  const paymentRows = paymentRepository(prisma);
  const inFlight = paymentsInFlight(paymentRows);
  const bills = billService(billRepository(prisma), orders, access, clock, inFlight, saleTime, keys);
  const credentials = gatewayCredentialService(
    gatewayCredentialRepository(prisma),
    config.masterKey && secretBox(config.masterKey),
    clock,
  );
  const gateway = gatewayClient(credentials, config.gateway?.url);
  if (config.gateway) await gateway.seed(config.gateway);
  const receiptRows = receiptRepository(prisma);
  const payments = paymentService({
    payments: paymentRows,
    bills,
    access,
    gateway,
    clock,
    saleTime,
    customers,
    receipts: receiptRows,
    keys,
  });
  const messages = posMessages(db, config);
  const receipts = receiptService({ receipts: receiptRows, payments, bills, orders, access, customers, messages });
  const outbox = outboxRepository(db);
  const settlement = settlementParts(prisma, access, clock, messages, config.acquirer);
  const refunds = refundService(refundRepository(prisma), payments, access, gateway, clock, keys);
  const accountingExports = accountingExportService({
    exports: accountingExportRepository(prisma),
    settlements: settlement.settlements,
    receipts,
    access,
    box: config.masterKey && secretBox(config.masterKey),
    clock,
  });
  const figures = paymentFigures(paymentFiguresRepository(prisma));
  const overview = overviewService(settlement.settlements, figures, access, clock);
  return {
    db,
    tasks: [
      outboxCensus,
      messageCensus,
      exportDeliveryCensus,
      interruptedPaymentCensus,
      staleRefundCensus,
      cardExchangeCensus,
    ],
    prisma,
    orders,
    bills,
    customers,
    gateway,
    payments,
    refunds,
    receipts,
    overview,
    messages,
    accountingExports,
    // The store feed's events: order, bill and payment changes, written by triggers (migration pos_outbox_receipts).
    outboxPublisher: (bus) => outboxPublisher({ outbox, bus, clock }),
    jobs: (bus) =>
      posJobs(
        { payments, refunds, cardExchange: settlement.cardExchange, messages, accountingExports },
        outboxPublisher({ outbox, bus, clock }),
      ),
    ...settlement,
    close: async () => {
      await messages.stop();
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
  messages: Pick<MessageOutbox, "send">,
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
  const contactOf = async (storeId: number) => (await access.receiptIssuer(storeId)).contact_email;
  const cardExchange = cardExchangeService(settlements, exchanges, notifications, { messages, contactOf }, clock);
  cardExchange.configure(acquirer);
  return { notifications, settlements, cardExchange };
}

/**
 * The daily card settlement exchange alone, on the pos database (a cluster worker, the operator command): it acts as
 * the system on stores found in its own rows, so it asks the portal nothing.
 */
export async function openCardExchange(config: StorageOptions & Pick<PosConfig, "clock" | "acquirer" | "messages">) {
  const db = await openSubgraphDatabase("pos", config);
  const prisma = markTransactions(new PrismaClient({ adapter: db.adapter }));
  // The failure e-mail's address is the portal's: from here it is not sent, and its alert line says so.
  const noPortal: PortalCall = async () => ({
    errors: [{ message: "the card exchange command asks the portal nothing" }],
  });
  const messages = posMessages(db, config);
  const { cardExchange } = settlementParts(
    prisma,
    storeAccess(noPortal),
    config.clock ?? (() => new Date()),
    messages,
    config.acquirer,
  );
  return {
    cardExchange,
    close: async () => {
      await messages.stop();
      await prisma.$disconnect();
      await db.close();
    },
  };
}
