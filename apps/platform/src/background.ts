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
 * awaited, so start-up does not wait on the gateway), the payment poller, which also sweeps refunds, expiry and
 * unfinished confirms, and the retries of the portal's MFA messages. Every part claims its rows, so any number of processes may run it.
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
  const mfaMessages = scheduleMessageRetries(portal.messages);
  return {
    async stop() {
      await mfaMessages.stop();
      await portal.gatewaySync.stop();
      await poller.stop();
      await publisher.stop();
      await partnerWebhooks.stop();
    },
  };
}

/**
 * Runs `work` every `intervalMs`: the timer is unref'd, a run never overlaps the one before, a failure is logged as
 * `failure`, and stop waits for a run under way.
 */
function repeatEvery(intervalMs: number, failure: string, work: () => Promise<unknown>): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= work()
      .catch((error) => logger.error(failure, { error: String(error) }))
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
 * POS's recovery pass every minute: card and QR payments a crash left pending without their intent are cancelled at
 * the gateway and failed, and the Idempotency-Keys a crash left processing are finished or released. Rows are
 * claimed, so any number of processes may run it.
 */
const schedulePosRecovery = (pos: PosDeps) =>
  repeatEvery(60_000, "the POS payment recovery pass failed", () => pos.payments.recoverStalePayments());

/** How often queued e-mail and SMS are looked at for a due retry (a failure seen in-process wakes it earlier). */
export const MESSAGE_RETRY_INTERVAL_MS = 5000;

/**
 * Retries the e-mail and SMS of a message outbox (`retryDueMessages`) every 5 s: due retries, and messages a process
 * that crashed mid-attempt held. Rows are claimed, so any number of processes may run it.
 */
export const scheduleMessageRetries = (outbox: { retryDueMessages(): Promise<number> }) =>
  repeatEvery(MESSAGE_RETRY_INTERVAL_MS, "the message retry pass failed", () => outbox.retryDueMessages());

/**
 * POS's background work, as the embedded platform runs it, for a cluster worker: the consumer of the gateway's
 * internal events that settles QR payments (group `pos-payments`, so each event reaches one process), the one that
 * e-mails receipts of completed payments (`pos-receipt-mail`), the POS
 * outbox publisher (the store feed's order, bill and payment changes), the payment recovery pass and the retries of
 * POS's e-mail. Start it before
 * the payments outbox publisher: the memory bus keeps events only for groups that exist.
 */
export async function startPosBackgroundWork(pos: PosDeps, bus: MessageBus): Promise<{ stop(): Promise<void> }> {
  const events = await pos.payments.consume(bus);
  let receipts: { stop(): Promise<void> } | undefined;
  let publisher: { stop(): Promise<void> };
  try {
    receipts = await pos.receipts.consume(bus);
    publisher = await pos.outboxPublisher(bus).start();
  } catch (error) {
    await receipts?.stop();
    await events.stop();
    throw error;
  }
  const recovery = schedulePosRecovery(pos);
  const messages = scheduleMessageRetries(pos.messages);
  return {
    async stop() {
      await messages.stop();
      await recovery.stop();
      await publisher.stop();
      await receipts?.stop();
      await events.stop();
    },
  };
}
