import { type JobRegistry, jobRegistry } from "@pos-cloud/common/jobs";
import type { MessageBus } from "@pos-cloud/common/messaging";
import { onRunner, watchTasks } from "@pos-cloud/common/tasks";
import type { PaymentsDeps } from "@pos-cloud/payments";
import type { PortalDeps } from "@pos-cloud/portal";
import type { PosDeps } from "@pos-cloud/pos";
import type { PlatformConfig } from "./environment";
import { ensurePlatformKeys, type PlatformKeys, platformKeyRenewalJob } from "./sync-partner";

/**
 * Points the portal's gateway sync at the gateway: the configured client partner, else the platform's own POS
 * partner at this platform's gateway (`gatewayUrl`), which that gateway alone lets create merchant and store ids (a
 * gateway elsewhere designates it at its own start). Answers the keys to sign with: a configured partner's one key
 * serves POS too, the platform's own partner has one for each.
 */
export async function configureGatewaySync(
  portal: PortalDeps,
  payments: PaymentsDeps,
  configured: PlatformConfig["gatewaySync"],
  gatewayUrl: string,
): Promise<PlatformKeys> {
  const keys = configured ? { sync: configured, pos: configured } : await ensurePlatformKeys(payments.partners);
  if (!configured?.url) await payments.partners.designateSyncPartner(keys.sync.clientPartnerId);
  portal.gatewaySync.configure({ ...keys.sync, url: configured?.url ?? gatewayUrl });
  return keys;
}

/**
 * The platform's own keys at `url`, handed to what signs with them: the sync key to the portal's sync in this
 * process, POS's key to POS through its database, where every POS process (each cluster subgraph process too) reads
 * it within a minute.
 */
export async function usePlatformKeys(
  subgraphs: { portal: PortalDeps; pos: PosDeps },
  keys: PlatformKeys,
  url: string,
) {
  subgraphs.portal.gatewaySync.configure({ ...keys.sync, url });
  await subgraphs.pos.gateway.configure({ ...keys.pos, url });
}

export interface BackgroundWork {
  /** Every periodic job of the three subgraphs, for `/ready`, operators and tests (`trigger`). */
  jobs: JobRegistry;
  stop(): Promise<void>;
}

/**
 * The platform's background work, the same in the embedded process and in a cluster worker: the bus consumers (the
 * portal's consumer of the other subgraphs' audit records, group `portal-audit`, the partner webhook dispatcher, POS's consumer of the gateway's events that settles QR payments, group `pos-payments`,
 * and the one that sends receipts of completed payments by e-mail or SMS, `pos-receipt-mail`)
 * and one job registry with the periodic work of every subgraph (their `jobs.ts`: outbox publishers, the payment
 * poller and its repairs, POS's recovery and card settlement exchange, the gateway sync, signing-key rotation). The
 * registry is not awaited on the gateway: the gateway sync runs at start in the background. Every part claims its
 * rows or shares a consumer group, so any number of processes may run it.
 */
export async function startBackgroundWork(
  subgraphs: { portal: PortalDeps; payments: PaymentsDeps; pos: PosDeps },
  bus: MessageBus,
  options: {
    pollIntervalMs: number;
    clock?: () => Date;
    /** The gateway's URL when the platform's own keys are in use: the job that renews them then runs here. */
    ownSyncKeyAt?: string;
  },
): Promise<BackgroundWork> {
  const { portal, payments, pos } = subgraphs;
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const next of stops.splice(0).reverse()) await next();
  };
  try {
    // Consuming before anything is published: the memory bus keeps events only for groups that exist.
    const auditTrail = await portal.auditTrail.consume(bus);
    stops.push(() => auditTrail.stop());
    const partnerWebhooks = await payments.partnerWebhooks.consume(bus);
    stops.push(() => partnerWebhooks.stop());
    const qrSettlement = await pos.payments.consume(bus);
    stops.push(() => qrSettlement.stop());
    const receiptMail = await pos.receipts.consume(bus);
    stops.push(() => receiptMail.stop());
    for (const { db, tasks } of [portal, pos, payments]) {
      const unwatch = watchTasks(onRunner(db), tasks, options.clock);
      stops.push(async () => unwatch());
    }
    const jobs = jobRegistry({ clock: options.clock }).register(
      ...portal.jobs(),
      ...pos.jobs(bus),
      ...payments.jobs(bus, { pollIntervalMs: options.pollIntervalMs }),
      ...ownKeyJobs(subgraphs, options),
    );
    stops.push(() => jobs.stop());
    await jobs.start();
    return { jobs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The renewal of the platform's own keys, when this platform uses them (not a partner configured elsewhere). */
function ownKeyJobs(
  subgraphs: { portal: PortalDeps; payments: PaymentsDeps; pos: PosDeps },
  options: { clock?: () => Date; ownSyncKeyAt?: string },
) {
  const url = options.ownSyncKeyAt;
  if (!url) return [];
  const use = (keys: PlatformKeys) => usePlatformKeys(subgraphs, keys, url);
  const clock = options.clock ?? (() => new Date());
  return [platformKeyRenewalJob({ partners: subgraphs.payments.partners, clock, use })];
}
