import { logger } from "@pos-cloud/common";
import type { MessageBus } from "@pos-cloud/common/messaging";
import type { PaymentsDeps } from "@pos-cloud/payments";
import type { PortalDeps } from "@pos-cloud/portal";
import type { PosDeps } from "@pos-cloud/pos";
import type { PlatformConfig } from "./environment";
import { ensureSyncPartner, type SyncPartner } from "./sync-partner";

/**
 * Points the portal's gateway sync at the gateway: the configured client partner, else the platform's own POS
 * partner at this platform's gateway (`gatewayUrl`), which that gateway alone lets create merchant and store ids (a
 * gateway elsewhere designates it at its own start).
 */
export async function configureGatewaySync(
  portal: PortalDeps,
  payments: PaymentsDeps,
  configured: PlatformConfig["gatewaySync"],
  gatewayUrl: string,
): Promise<SyncPartner> {
  const partner = configured ?? (await ensureSyncPartner(payments.partners));
  if (!configured?.url) await payments.partners.designateSyncPartner(partner.clientPartnerId);
  portal.gatewaySync.configure({ ...partner, url: configured?.url ?? gatewayUrl });
  return partner;
}

/**
 * The platform's background work, the same in the embedded process and in a cluster worker: the partner webhook
 * dispatcher, the outbox publisher, the portal's gateway sync worker (a full sync now and every 15 minutes; not
 * awaited, so start-up does not wait on the gateway) and the payment poller, which also sweeps refunds, expiry and
 * unfinished confirms. Every part claims its rows, so any number of processes may run it.
 */
export async function startBackgroundWork(
  portal: PortalDeps,
  payments: PaymentsDeps,
  bus: MessageBus,
  pollIntervalMs: number,
): Promise<{ stop(): Promise<void> }> {
  // Consuming before anything is published: the memory bus keeps events only for groups that exist.
  const partnerWebhooks = await payments.partnerWebhooks.start(bus);
  let publisher: { stop(): Promise<void> };
  try {
    publisher = await payments.outboxPublisher(bus).start();
  } catch (error) {
    await partnerWebhooks.stop();
    throw error;
  }
  portal.gatewaySync.start();
  const poller = payments.poller.start(pollIntervalMs);
  return {
    async stop() {
      await portal.gatewaySync.stop();
      await poller.stop();
      await publisher.stop();
      await partnerWebhooks.stop();
    },
  };
}

/**
 * The portal's consumer of the other subgraphs' audit records (`audit.recorded`, group `portal-audit`), the same in
 * the embedded process and in a cluster worker. Start it before any outbox publisher: the memory bus keeps events
 * only for groups that exist.
 */
export const startAuditTrail = (portal: PortalDeps, bus: MessageBus) => portal.auditTrail.consume(bus);

/**
 * POS's recovery pass every `intervalMs` (a minute): card and QR payments a crash left pending without their intent
 * are cancelled at the gateway and failed, and the Idempotency-Keys a crash left processing are finished or released.
 * The timer is unref'd, a pass never overlaps the one before, and stop waits
 * for a pass under way. Rows are claimed, so any number of processes may run it.
 */
function schedulePosRecovery(pos: PosDeps, intervalMs = 60_000): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= pos.payments
      .recoverStalePayments()
      .catch((error) => logger.error("the POS payment recovery pass failed", { error: String(error) }))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * POS's background work, as the embedded platform runs it, for a cluster worker: the consumer of the gateway's
 * internal events that settles QR payments (group `pos-payments`, so each event reaches one process), the POS
 * outbox publisher (the store feed's order, bill and payment changes) and the payment recovery pass. Start it before
 * the payments outbox publisher: the memory bus keeps events only for groups that exist.
 */
export async function startPosBackgroundWork(pos: PosDeps, bus: MessageBus): Promise<{ stop(): Promise<void> }> {
  const events = await pos.payments.consume(bus);
  let publisher: { stop(): Promise<void> };
  try {
    publisher = await pos.outboxPublisher(bus).start();
  } catch (error) {
    await events.stop();
    throw error;
  }
  const recovery = schedulePosRecovery(pos);
  return {
    async stop() {
      await recovery.stop();
      await publisher.stop();
      await events.stop();
    },
  };
}
