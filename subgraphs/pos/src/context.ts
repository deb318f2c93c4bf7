import type { Caller } from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import type { MessageOutbox } from "@pos-cloud/common/messages";
import type { MessageBus } from "@pos-cloud/common/messaging";
import type { OutboxPublisher } from "@pos-cloud/common/outbox";
import type { Database } from "@pos-cloud/common/storage";
import type { TaskCensus } from "@pos-cloud/common/tasks";
import type { PrismaClient } from "./generated/prisma/client";
import type { AccountingExportService } from "./modules/accounting-exports/accounting-export.service";
import type { BillService } from "./modules/bills/bill.service";
import type { CustomerService } from "./modules/customers/customer.service";
import type { NotificationService } from "./modules/notifications/notification.service";
import type { OrderService } from "./modules/orders/order.service";
import type { OverviewService } from "./modules/overview/overview.service";
import type { GatewayClient } from "./modules/payments/gateway.client";
import type { PaymentService } from "./modules/payments/payment.service";
import type { ReceiptService } from "./modules/receipts/receipt.service";
import type { RefundService } from "./modules/refunds/refund.service";
import type { CardExchangeService } from "./modules/settlements/card-exchange.service";
import type { SettlementService } from "./modules/settlements/settlement.service";

export interface PosDeps {
  db: Database;
  /** The task kinds waiting in its database, for the task gauges (`watchTasks`). */
  tasks: TaskCensus[];
  prisma: PrismaClient;
  orders: OrderService;
  /** Bills, and `applyPayment` for the POS payments that pay them. */
  bills: BillService;
  /** Customers of merchants, and the totals POS payments and refunds keep for them. */
  customers: CustomerService;
  /** POS's client of the payment gateway's `/v1` API. */
  gateway: GatewayClient;
  /** Payments, and `consume` for the gateway events that settle QR payments. */
  payments: PaymentService;
  refunds: RefundService;
  /** Receipts and tax invoices of completed payments. */
  receipts: ReceiptService;
  /** The business at a glance over the stores a person reaches. */
  overview: OverviewService;
  /** The exchange's failure e-mails and customers' e-mail receipts, queued; the platform runs `retryDueMessages`. */
  messages: MessageOutbox;
  /** The publisher of the POS outbox (order, bill and payment changes) onto `bus`; its jobs are among `jobs`. */
  outboxPublisher(bus: MessageBus): OutboxPublisher;
  /** The subgraph's periodic work (jobs.ts), for the job registry of the platform or a worker. */
  jobs(bus: MessageBus): Job[];
  settlements: SettlementService;
  /** The daily card settlement exchange: `configure` (the acquirer), `run` (a day), `jobs` (02:00 Asia/Tokyo, retries). */
  cardExchange: CardExchangeService;
  notifications: NotificationService;
  /** The daily accounting export by SFTP: settings, deliveries, `exportDay`, `deliverDue`, a day sent again. */
  accountingExports: AccountingExportService;
  close(): Promise<void>;
}

/** What one request sees: who calls, and the services. */
export interface PosContext {
  caller: Caller;
  orders: OrderService;
  bills: BillService;
  customers: CustomerService;
  payments: PaymentService;
  refunds: RefundService;
  receipts: ReceiptService;
  settlements: SettlementService;
  notifications: NotificationService;
  accountingExports: AccountingExportService;
  overview: OverviewService;
}

export function createContext(deps: PosDeps, caller: Caller): PosContext {
  return {
    caller,
    orders: deps.orders,
    bills: deps.bills,
    customers: deps.customers,
    payments: deps.payments,
    refunds: deps.refunds,
    receipts: deps.receipts,
    settlements: deps.settlements,
    notifications: deps.notifications,
    accountingExports: deps.accountingExports,
    overview: deps.overview,
  };
}
