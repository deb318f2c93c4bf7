// A cluster worker: the outbox publisher, the partner webhook dispatcher, the payment poller with its sweeps, the
// portal's gateway sync, the signing-key rotation check and POS's background work (the consumer that settles QR
// payments, the POS outbox publisher), on PostgreSQL and NATS JetStream, with /health, /ready and /metrics on
// METRICS_PORT. Any number may run at once: each part claims its rows (FOR UPDATE SKIP LOCKED) or shares a consumer
// group. Configuration: src/environment.ts.
import { stopOnSignals, tuneGarbageCollection } from "@pos-cloud/common";
import { natsBus } from "@pos-cloud/common/messaging";
import { MigrationError } from "@pos-cloud/common/storage";
import { openPayments, sandboxSetup } from "@pos-cloud/payments";
import {
  configureGatewaySync,
  scheduleKeyRotation,
  startAuditTrail,
  startBackgroundWork,
  startPosBackgroundWork,
} from "@pos-cloud/platform";
import { openPortal } from "@pos-cloud/portal";
import { openPos, portalClient } from "@pos-cloud/pos";
import { loadWorkerEnvironment } from "./environment";
import { serveOperations } from "./operations";

tuneGarbageCollection();
const config = loadWorkerEnvironment();

/** Starts every part in order; if one fails, what already started is stopped, last first. */
async function startWorker() {
  const stops: (() => Promise<unknown> | unknown)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const portal = await openPortal({ url: config.databaseUrls.portal, masterKey: config.masterKey });
    stops.push(() => portal.close());
    const payments = await openPayments({
      url: config.databaseUrls.payments,
      masterKey: config.masterKey,
      partnerWebhooks: config.partnerWebhooks,
    });
    stops.push(() => payments.close());
    const pos = await openPos({
      url: config.databaseUrls.pos,
      portal: portalClient({ url: config.portalUrl }, config.internalToken),
    });
    stops.push(() => pos.close());
    const bus = await natsBus(config.messaging);
    stops.push(() => bus.close());
    if (config.sandbox) payments.providers.attach(sandboxSetup(config.sandbox, config.gatewayUrl));
    const partner = await configureGatewaySync(portal, payments, undefined, config.gatewayUrl);
    // POS undoes a QR payment its bill can no longer take through the gateway's API, as the same partner.
    pos.gateway.configure({ ...partner, url: config.gatewayUrl });
    stops.push(await scheduleKeyRotation(portal));
    // Consumers before the publisher, as in the embedded platform.
    const auditTrail = await startAuditTrail(portal, bus);
    stops.push(() => auditTrail.stop());
    const posWork = await startPosBackgroundWork(pos, bus);
    stops.push(() => posWork.stop());
    // The daily card settlement exchange: every worker schedules it; each store's day is claimed by one.
    if (config.acquirerFtpUrl) {
      pos.cardExchange.configure({ url: config.acquirerFtpUrl });
      const exchange = pos.cardExchange.schedule();
      stops.push(() => exchange.stop());
    }
    const background = await startBackgroundWork(portal, payments, bus, config.paymentsPollIntervalMs);
    stops.push(() => background.stop());
    const operations = await serveOperations(config.metrics, {
      portal_database: () => portal.db.query("SELECT 1"),
      payments_database: () => payments.db.query("SELECT 1"),
      pos_database: () => pos.db.query("SELECT 1"),
      nats: () => bus.ping(),
    });
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
