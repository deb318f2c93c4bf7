// A cluster worker: the outbox publisher, the partner webhook dispatcher, the payment poller with its sweeps, the
// portal's gateway sync and the signing-key rotation check, on PostgreSQL and NATS JetStream. Any number may run at
// once: each part claims its rows (FOR UPDATE SKIP LOCKED). Configuration: src/environment.ts.
import { stopOnSignals, tuneGarbageCollection } from "@pos-cloud/common";
import { natsBus } from "@pos-cloud/common/messaging";
import { MigrationError } from "@pos-cloud/common/storage";
import { openPayments, sandboxSetup } from "@pos-cloud/payments";
import { configureGatewaySync, scheduleKeyRotation, startBackgroundWork } from "@pos-cloud/platform";
import { openPortal } from "@pos-cloud/portal";
import { loadWorkerEnvironment } from "./environment";

tuneGarbageCollection();
const config = loadWorkerEnvironment();

async function startWorker() {
  const portal = await openPortal({ url: config.databaseUrls.portal, masterKey: config.masterKey });
  const payments = await openPayments({
    url: config.databaseUrls.payments,
    masterKey: config.masterKey,
    partnerWebhooks: { allowPrivateUrls: config.allowPrivateWebhookUrls },
  }).catch(async (error: unknown) => {
    await portal.close();
    throw error;
  });
  const closeStorage = () => Promise.all([portal.close(), payments.close()]);
  let bus: Awaited<ReturnType<typeof natsBus>>;
  try {
    bus = await natsBus(config.messaging);
  } catch (error) {
    await closeStorage();
    throw error;
  }
  try {
    if (config.sandbox) payments.providers.attach(sandboxSetup(config.sandbox, config.gatewayUrl));
    await configureGatewaySync(portal, payments, undefined, config.gatewayUrl);
    const stopKeyRotation = await scheduleKeyRotation(portal);
    const background = await startBackgroundWork(portal, payments, bus, config.paymentsPollIntervalMs);
    return async () => {
      stopKeyRotation();
      await background.stop();
      await bus.close();
      await closeStorage();
    };
  } catch (error) {
    await bus.close();
    await closeStorage();
    throw error;
  }
}

let stop: () => Promise<void>;
try {
  stop = await startWorker();
} catch (error) {
  console.error(
    error instanceof MigrationError
      ? `${error.message}\nThe database was left as it was before this start.`
      : `the worker could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
console.log(`worker ${process.pid} running (gateway ${config.gatewayUrl}, NATS ${config.messaging.url})`);
stopOnSignals("worker", () => stop());
