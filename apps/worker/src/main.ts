// A cluster worker: the bus consumers (the portal's audit trail, partner webhooks, POS's QR settlement and receipt
// mail) and the job registry of every subgraph's periodic work (outbox publishers, the payment poller and its
// repairs, the gateway sync, signing-key rotation, POS's recovery, message retries, the card settlement exchange when
// an acquirer is configured), on PostgreSQL and NATS JetStream, with /health, /ready (which lists the jobs) and
// /metrics on METRICS_PORT. Any number may run at once: each part claims its rows (FOR UPDATE SKIP LOCKED) or shares a consumer
// group. Configuration: src/environment.ts.
import {
  guardAgainstDescriptorExhaustion,
  serveOperatorPort,
  stopOnSignals,
  tracingFor,
  tuneGarbageCollection,
} from "@pos-cloud/common";
import { natsBus, tracedBus } from "@pos-cloud/common/messaging";
import { metrics } from "@pos-cloud/common/metrics";
import { MigrationError } from "@pos-cloud/common/storage";
import { openPayments } from "@pos-cloud/payments";
import { configureGatewaySync, startBackgroundWork } from "@pos-cloud/platform";
import { openPortal } from "@pos-cloud/portal";
import { openPos, portalClient } from "@pos-cloud/pos";
import { loadWorkerEnvironment } from "./environment";

guardAgainstDescriptorExhaustion("worker");
tuneGarbageCollection();
const config = loadWorkerEnvironment();
await tracingFor("pos-cloud-worker", config.otlpEndpoint);

/** Starts every part in order; if one fails, what already started is stopped, last first. */
async function startWorker() {
  const stops: (() => Promise<unknown> | unknown)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const portal = await openPortal({
      url: config.databaseUrls.portal,
      masterKey: config.masterKey,
      messages: config.messages,
    });
    stops.push(() => portal.close());
    const payments = await openPayments({
      url: config.databaseUrls.payments,
      masterKey: config.masterKey,
      partnerWebhooks: config.partnerWebhooks,
    });
    stops.push(() => payments.close());
    const pos = await openPos({
      url: config.databaseUrls.pos,
      masterKey: config.masterKey,
      portal: portalClient({ url: config.portalUrl }, config.internalToken),
      messages: config.messages,
    });
    stops.push(() => pos.close());
    const bus = tracedBus(await natsBus(config.messaging));
    stops.push(() => bus.close());
    await payments.providers.configure(config.paymentProviders, {
      gatewayUrl: config.gatewayUrl,
      sandbox: config.sandbox,
    });
    const keys = await configureGatewaySync(portal, payments, undefined, config.gatewayUrl);
    // POS undoes a QR payment its bill can no longer take through the gateway's API, as the same partner.
    await pos.gateway.configure({ ...keys.pos, url: config.gatewayUrl });
    // The daily card settlement exchange: every worker runs the job; each store's day is claimed by one.
    if (config.acquirerFtpUrl) pos.cardExchange.configure({ url: config.acquirerFtpUrl });
    const background = await startBackgroundWork({ portal, payments, pos }, bus, {
      pollIntervalMs: config.paymentsPollIntervalMs,
      ownSyncKeyAt: config.gatewayUrl,
    });
    stops.push(() => background.stop());
    const operations = await serveOperatorPort(
      config.metrics,
      {
        portal_database: () => portal.db.query("SELECT 1"),
        payments_database: () => payments.db.query("SELECT 1"),
        pos_database: () => pos.db.query("SELECT 1"),
        nats: () => bus.ping(),
      },
      { text: () => metrics.metrics(), contentType: metrics.contentType },
      background.jobs.list,
    );
    stops.push(() => operations.close());
    return { metricsUrl: `${operations.url}/metrics`, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

let worker: Awaited<ReturnType<typeof startWorker>>;
try {
  worker = await startWorker();
} catch (error) {
  console.error(
    error instanceof MigrationError
      ? `${error.message}\nThe database was left as it was before this start.`
      : `the worker could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
console.log(
  `worker ${process.pid} running (gateway ${config.gatewayUrl}, NATS ${config.messaging.url}, metrics ${worker.metricsUrl})`,
);
stopOnSignals("worker", () => worker.stop());
