import { loadTypeDefs, mergeResolvers, type SubgraphDefinition, scalarResolvers, secretBox } from "@pos-cloud/common";
import { outboxCensus } from "@pos-cloud/common/outbox";
import { markTransactions, openSubgraphDatabase, preparedSql, type StorageOptions } from "@pos-cloud/common/storage";
import { recoveryCensuses } from "./claims";
import { type Clock, systemClock } from "./clock";
import { createContext, type PaymentsContext, type PaymentsDeps } from "./context";
import { PrismaClient } from "./generated/prisma/client";
import { paymentsJobs } from "./jobs";
import { alertResolvers } from "./modules/alerts/resolvers";
import { confirmRepository } from "./modules/confirm/confirm.repository";
import { confirmService } from "./modules/confirm/confirm.service";
import { confirmRecoveryService } from "./modules/confirm/confirm-recovery.service";
import { confirmResolvers } from "./modules/confirm/resolvers";
import { gatewayFrontService } from "./modules/gateway-front/gateway-front.service";
import { gatewayFrontResolvers } from "./modules/gateway-front/resolvers";
import { seenSignatureRepository } from "./modules/gateway-front/seen-signature.repository";
import { idempotencyRepository } from "./modules/idempotency/idempotency.repository";
import { idempotencyService } from "./modules/idempotency/idempotency.service";
import { ledgerResolvers } from "./modules/ledger/resolvers";
import { transactionRepository } from "./modules/ledger/transaction.repository";
import { transactionService } from "./modules/ledger/transaction.service";
import { outboxRepository } from "./modules/outbox/outbox.repository";
import { outboxService } from "./modules/outbox/outbox.service";
import { outboxPublisher } from "./modules/outbox/outbox-publisher.service";
import { outboxResolvers } from "./modules/outbox/resolvers";
import { apiKeyExpiry } from "./modules/partners/api-key-expiry.service";
import { grantRepository } from "./modules/partners/grant.repository";
import { grantService } from "./modules/partners/grant.service";
import { merchantSyncRepository } from "./modules/partners/merchant-sync.repository";
import { merchantSyncService } from "./modules/partners/merchant-sync.service";
import { partnerRepository } from "./modules/partners/partner.repository";
import { partnerService } from "./modules/partners/partner.service";
import { partnerAdminService } from "./modules/partners/partner-admin.service";
import { partnerResolvers } from "./modules/partners/resolvers";
import { storeResolver } from "./modules/partners/store-resolver.service";
import { paymentIntentRepository } from "./modules/payment-intents/payment-intent.repository";
import { paymentIntentService } from "./modules/payment-intents/payment-intent.service";
import { paymentIntentResolvers, storeReferenceBatch } from "./modules/payment-intents/resolvers";
import { paymentPoller } from "./modules/provider-events/payment-poller.service";
import { providerEventRepository } from "./modules/provider-events/provider-event.repository";
import { providerOutcomeService } from "./modules/provider-events/provider-outcome.service";
import { providerEventResolvers } from "./modules/provider-events/resolvers";
import { webhookService } from "./modules/provider-events/webhook.service";
import { providerConfigRepository } from "./modules/providers/provider-credentials.repository";
import { providerCredentialStore } from "./modules/providers/provider-credentials.service";
import { providerDirectory } from "./modules/providers/provider-directory.service";
import { reconciliationRepository } from "./modules/reconciliation/reconciliation.repository";
import { reconciliationService } from "./modules/reconciliation/reconciliation.service";
import { reconciliationResolvers } from "./modules/reconciliation/resolvers";
import { refundRepository } from "./modules/refunds/refund.repository";
import { refundService } from "./modules/refunds/refund.service";
import { refundResolvers } from "./modules/refunds/resolvers";
import { apiKeyWebhookService } from "./modules/webhooks/api-key-webhook.service";
import { webhookResolvers } from "./modules/webhooks/resolvers";
import { deliveryCensus, webhookDeliveryRepository } from "./modules/webhooks/webhook-delivery.repository";
import { type WebhookDeliverySettings, webhookDispatcher } from "./modules/webhooks/webhook-dispatcher.service";

export type { Clock } from "./clock";
export type { PaymentsContext, PaymentsDeps } from "./context";
export type { IssuedApiKey } from "./modules/partners/api-key-issuance.service";
export { DEFAULT_KEY_LIFETIME_DAYS, type PartnerService } from "./modules/partners/partner.service";
export type { ProviderContext, ProviderSetting } from "./modules/providers/provider.contract";
export { DEFAULT_PROVIDER_SETTINGS, providerSettingsSchema } from "./modules/providers/provider.settings";
export type { WebhookDeliverySettings } from "./modules/webhooks/webhook-dispatcher.service";

export interface PaymentsConfig extends StorageOptions {
  /** Encrypts partner secrets, provider credentials and stored idempotent responses. */
  masterKey: Buffer;
  clock?: Clock;
  /** Pauses between attempts at a failing provider notification before it is dead-lettered (tests shorten them). */
  webhookRetryDelaysMs?: number[];
  /** Outbound partner webhooks: retries, timeout, concurrency and whether private URLs may be posted to. */
  partnerWebhooks?: WebhookDeliverySettings;
  /** How long a partner API key works after issue (API_KEY_LIFETIME_DAYS); the spec's 180 unless set. */
  apiKeyLifetimeDays?: number;
}

export const payments: SubgraphDefinition<PaymentsDeps, PaymentsContext> = {
  name: "payments",
  typeDefs: loadTypeDefs(import.meta.dirname),
  resolvers: mergeResolvers(
    scalarResolvers,
    partnerResolvers,
    paymentIntentResolvers,
    confirmResolvers,
    providerEventResolvers,
    refundResolvers,
    ledgerResolvers,
    gatewayFrontResolvers,
    outboxResolvers,
    webhookResolvers,
    reconciliationResolvers,
    alertResolvers,
  ),
  referenceBatches: { Store: storeReferenceBatch },
  createContext,
};

/**
 * The partner webhook dispatcher and the webhook settings and recovery its partners use, each told of the other: a
 * delivery that succeeds lets the key's dead letters go again, a redelivery wakes the dispatcher.
 */
function webhookServices(deps: {
  deliveries: ReturnType<typeof webhookDeliveryRepository>;
  partners: ReturnType<typeof partnerService>;
  outbox: ReturnType<typeof outboxService>;
  clock: Clock;
  settings: PaymentsConfig["partnerWebhooks"];
}) {
  const { deliveries, partners, outbox, clock, settings } = deps;
  const partnerWebhooks = webhookDispatcher(
    { deliveries, partners, clock, onDelivered: (client_id) => apiKeyWebhooks.afterDelivered(client_id) },
    settings,
  );
  const apiKeyWebhooks = apiKeyWebhookService({
    partners,
    deliveries,
    outbox,
    clock,
    allowPrivateUrls: settings?.allowPrivateUrls ?? false,
    onDue: partnerWebhooks.wake,
  });
  return { partnerWebhooks, apiKeyWebhooks };
}

type SyncParameters = Parameters<typeof merchantSyncService>;

/** The merchants as the portal's sync placed them, and the QR reconciliation that counts differences over them. */
function merchantParts(
  prisma: PrismaClient,
  deps: Omit<Parameters<typeof reconciliationService>[1], "merchants"> & {
    box: SyncParameters[1];
    idempotency: SyncParameters[3];
  },
) {
  const merchantSync = merchantSyncService(merchantSyncRepository(prisma), deps.box, deps.clock, deps.idempotency);
  const reconciliation = reconciliationService(reconciliationRepository(prisma), { ...deps, merchants: merchantSync });
  return { merchantSync, reconciliation };
}

export async function openPayments(config: PaymentsConfig): Promise<PaymentsDeps> {
  const db = await openSubgraphDatabase("payments", config);
  const prisma = markTransactions(new PrismaClient({ adapter: db.adapter }));
  const box = secretBox(config.masterKey);
  const clock = config.clock ?? systemClock;
  const sql = preparedSql(db);
  const partners = partnerRepository(prisma, sql);
  const idempotency = idempotencyService(idempotencyRepository(prisma, sql), box, clock);
  const providers = providerDirectory();
  const credentials = providerCredentialStore(providerConfigRepository(prisma), box);
  const events = providerEventRepository(prisma);
  const stores = storeResolver(partners);
  const refunds = refundService({
    refunds: refundRepository(prisma),
    idempotency,
    providers,
    credentials,
    stores,
    clock,
  });
  const outcomes = providerOutcomeService({ events, refunds, providers, credentials, clock });
  const outbox = outboxRepository(db);
  const outboxEvents = outboxService(outbox);
  const paymentIntents = paymentIntentService({
    intents: paymentIntentRepository(prisma, sql),
    stores,
    idempotency,
    outcomes,
    clock,
  });
  const transactions = transactionService({ ledger: transactionRepository(prisma), intents: paymentIntents });
  const confirmations = confirmRepository(prisma);
  const partnerKeys = partnerService(partners, box, clock, config.apiKeyLifetimeDays);
  // Before anything reads a secret: a database made with another master key stops the open here.
  await partnerKeys.verifyMasterKey().catch(async (error: unknown) => {
    await prisma.$disconnect();
    await db.close();
    throw error;
  });
  const keyExpiry = apiKeyExpiry({ repository: partners, clock });
  const { partnerWebhooks, apiKeyWebhooks } = webhookServices({
    deliveries: webhookDeliveryRepository(prisma),
    partners: partnerKeys,
    outbox: outboxEvents,
    clock,
    settings: config.partnerWebhooks,
  });
  const confirmRecovery = confirmRecoveryService({ confirmations, providers, credentials, clock });
  const poller = paymentPoller({ events, outcomes, providers, credentials, clock });
  const { merchantSync, reconciliation } = merchantParts(prisma, { box, clock, idempotency, providers, credentials });
  const deps: PaymentsDeps = {
    db,
    tasks: [outboxCensus, deliveryCensus, ...recoveryCensuses],
    prisma,
    partners: partnerKeys,
    partnerAdmin: partnerAdminService({ partners: partnerKeys, repository: partners, clock }),
    apiKeyExpiry: keyExpiry,
    merchantSync,
    grants: grantService({ grants: grantRepository(prisma), partners, clock }),
    paymentIntents,
    providers,
    confirmations: confirmService({ intents: paymentIntents, confirmations, providers, credentials, clock }),
    confirmRecovery,
    webhooks: webhookService({ events, outcomes, providers, clock, retryDelaysMs: config.webhookRetryDelaysMs }),
    poller,
    reconciliation,
    refunds,
    transactions,
    gatewayFront: gatewayFrontService({
      signatures: seenSignatureRepository(prisma, sql),
      stores,
      intents: paymentIntents,
      transactions,
      clock,
    }),
    outbox: outboxEvents,
    outboxPublisher: (bus) => outboxPublisher({ outbox, bus, clock }),
    jobs: (bus, options) => paymentsJobs(deps, outboxPublisher({ outbox, bus, clock }), options.pollIntervalMs),
    partnerWebhooks,
    apiKeyWebhooks,
    close: async () => {
      await prisma.$disconnect();
      await db.close();
    },
  };
  return deps;
}
