import type { Caller } from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import type { MessageBus } from "@pos-cloud/common/messaging";
import type { Database } from "@pos-cloud/common/storage";
import type { TaskCensus } from "@pos-cloud/common/tasks";
import type { PrismaClient } from "./generated/prisma/client";
import type { ConfirmService } from "./modules/confirm/confirm.service";
import type { ConfirmRecoveryService } from "./modules/confirm/confirm-recovery.service";
import type { GatewayFrontService } from "./modules/gateway-front/gateway-front.service";
import type { TransactionService } from "./modules/ledger/transaction.service";
import type { OutboxService } from "./modules/outbox/outbox.service";
import type { OutboxPublisher } from "./modules/outbox/outbox-publisher.service";
import type { ApiKeyExpiry } from "./modules/partners/api-key-expiry.service";
import type { GrantService } from "./modules/partners/grant.service";
import type { MerchantSyncService } from "./modules/partners/merchant-sync.service";
import type { PartnerService } from "./modules/partners/partner.service";
import type { PartnerAdminService } from "./modules/partners/partner-admin.service";
import type { PaymentIntentService } from "./modules/payment-intents/payment-intent.service";
import type { PaymentPoller } from "./modules/provider-events/payment-poller.service";
import type { WebhookService } from "./modules/provider-events/webhook.service";
import type { ProviderDirectory } from "./modules/providers/provider-directory.service";
import type { ReconciliationService } from "./modules/reconciliation/reconciliation.service";
import type { RefundService } from "./modules/refunds/refund.service";
import type { ApiKeyWebhookService } from "./modules/webhooks/api-key-webhook.service";
import type { WebhookDispatcher } from "./modules/webhooks/webhook-dispatcher.service";

export interface PaymentsDeps {
  db: Database;
  /** The task kinds waiting in its database, for the task gauges (`watchTasks`). */
  tasks: TaskCensus[];
  prisma: PrismaClient;
  partners: PartnerService;
  /** Client partners and their keys as system operators manage them. */
  partnerAdmin: PartnerAdminService;
  /** Key expiry notices and records; a job, which tests may run themselves. */
  apiKeyExpiry: ApiKeyExpiry;
  merchantSync: MerchantSyncService;
  /** Merchants' grants to client partners. */
  grants: GrantService;
  paymentIntents: PaymentIntentService;
  /** Attach the providers once their addresses are known (`providers.attach`). */
  providers: ProviderDirectory;
  confirmations: ConfirmService;
  /** Resolves confirms whose request died after the provider call; a job. */
  confirmRecovery: ConfirmRecoveryService;
  webhooks: WebhookService;
  /** Polls providers that must be asked (a job of `jobs`); tests run `pollOnce` themselves. */
  poller: PaymentPoller;
  /** The daily reconciliation of QR sales with each provider (a job per provider); tests run `run` themselves. */
  reconciliation: ReconciliationService;
  refunds: RefundService;
  transactions: TransactionService;
  /** The edge's questions before a signed request runs (replayed signature, store of the rate limits). */
  gatewayFront: GatewayFrontService;
  /** Failed outbox events, for operators. */
  outbox: OutboxService;
  /** The publisher of committed outbox rows onto `bus`; its jobs are among `jobs`, tests drive its batches. */
  outboxPublisher(bus: MessageBus): OutboxPublisher;
  /** The subgraph's periodic work (jobs.ts), for the job registry of the platform or a worker. */
  jobs(bus: MessageBus, options: { pollIntervalMs: number }): Job[];
  /** Partner webhooks: the platform starts the dispatcher on its bus (`start`); tests drive `deliverDue`. */
  partnerWebhooks: WebhookDispatcher;
  /** API keys' webhook settings and the dead letters of partner webhooks. */
  apiKeyWebhooks: ApiKeyWebhookService;
  close(): Promise<void>;
}

/** What one request sees: who calls, and the services. */
export interface PaymentsContext {
  caller: Caller;
  partners: PartnerService;
  partnerAdmin: PartnerAdminService;
  merchantSync: MerchantSyncService;
  grants: GrantService;
  paymentIntents: PaymentIntentService;
  confirmations: ConfirmService;
  webhooks: WebhookService;
  refunds: RefundService;
  transactions: TransactionService;
  gatewayFront: GatewayFrontService;
  outbox: OutboxService;
  apiKeyWebhooks: ApiKeyWebhookService;
  reconciliation: ReconciliationService;
}

export function createContext(deps: PaymentsDeps, caller: Caller): PaymentsContext {
  return {
    caller,
    partners: deps.partners,
    partnerAdmin: deps.partnerAdmin,
    merchantSync: deps.merchantSync,
    grants: deps.grants,
    paymentIntents: deps.paymentIntents,
    confirmations: deps.confirmations,
    webhooks: deps.webhooks,
    refunds: deps.refunds,
    transactions: deps.transactions,
    gatewayFront: deps.gatewayFront,
    outbox: deps.outbox,
    apiKeyWebhooks: deps.apiKeyWebhooks,
    reconciliation: deps.reconciliation,
  };
}
