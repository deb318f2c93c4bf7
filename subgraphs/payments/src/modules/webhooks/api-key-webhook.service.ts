import {
  AppError,
  type Caller,
  isOperator,
  notFound,
  parseInput,
  parsePage,
  requireApiKeyAccess,
  requireOperator,
} from "@pos-cloud/common";
import { z } from "zod";
import type { Clock } from "../../clock";
import type { OutboxService } from "../outbox";
import type { PartnerService } from "../partners";
import { autoRedelivery } from "./webhook.inputs";
import { webhookDeliveryMachine } from "./webhook-delivery.machine";
import type { WebhookDeliveryRepository } from "./webhook-delivery.repository";
import { webhookRecovery } from "./webhook-recovery.service";
import { parseWebhookUrl } from "./webhook-url.rules";

export type ApiKeyWebhookService = ReturnType<typeof apiKeyWebhookService>;

/** While a webhook secret rotates, the old one signs beside the new one this long. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The most deliveries one listing shows. */
const MAX_DELIVERIES = 100;

/**
 * The webhook of an API key (client_id), managed by its partner over signed REST or by its admins over GraphQL,
 * and the dead letters of partner deliveries.
 */
export function apiKeyWebhookService(deps: {
  partners: PartnerService;
  deliveries: WebhookDeliveryRepository;
  outbox: OutboxService;
  clock: Clock;
  allowPrivateUrls: boolean;
  /** Tells the dispatcher a delivery is due (a replay). */
  onDue: () => void;
}) {
  const { partners, deliveries, clock } = deps;

  async function reachableKey(caller: Caller, client_id: string) {
    const key = await partners.webhookOf(client_id);
    if (!key) throw notFound("API key");
    requireApiKeyAccess(caller, key);
    await partners.requireNewestKey(caller, client_id);
    return key;
  }

  return {
    async webhook(caller: Caller, client_id: string) {
      const { webhook_url, permissions, store_ids } = await reachableKey(caller, client_id);
      return {
        client_id,
        webhook_url,
        permissions,
        store_ids,
        auto_redelivery: await deliveries.autoRedeliveryOf(client_id),
      };
    },

    /** Sets the URL, and the automatic redelivery when given (absent leaves it as it is). */
    async setWebhook(caller: Caller, input: { client_id: string; webhook_url: string; auto_redelivery?: unknown }) {
      const { permissions, store_ids } = await reachableKey(caller, input.client_id);
      const webhook_url = parseWebhookUrl(input.webhook_url, deps.allowPrivateUrls);
      const { auto_redelivery } = parseInput(z.object({ auto_redelivery: autoRedelivery.optional() }), {
        auto_redelivery: input.auto_redelivery ?? undefined,
      });
      await partners.setWebhookUrl(input.client_id, webhook_url);
      if (auto_redelivery !== undefined) await deliveries.setAutoRedelivery(input.client_id, auto_redelivery, clock());
      return {
        client_id: input.client_id,
        webhook_url,
        permissions,
        store_ids,
        auto_redelivery: await deliveries.autoRedeliveryOf(input.client_id),
      };
    },

    /**
     * Removing a webhook that is not set is not an error: the key ends without one either way, and without automatic
     * redelivery.
     */
    async deleteWebhook(caller: Caller, client_id: string): Promise<boolean> {
      await reachableKey(caller, client_id);
      await partners.setWebhookUrl(client_id, null);
      await deliveries.setAutoRedelivery(client_id, "off", clock());
      return true;
    },

    async rotateSecret(caller: Caller, client_id: string) {
      await reachableKey(caller, client_id);
      const previous_secret_expires_at = new Date(clock().getTime() + SECRET_OVERLAP_MS);
      const webhook_secret = await partners.rotateWebhookSecret(client_id, previous_secret_expires_at);
      return { client_id, webhook_secret, previous_secret_expires_at };
    },

    /** Dead letters of one key (its admins), or of every key (system operators). */
    async deadLetters(caller: Caller, client_id: string | null) {
      if (client_id === null) requireOperator(caller);
      else await reachableKey(caller, client_id);
      return deliveries.list({ client_id, status: "dead" }, MAX_DELIVERIES);
    },

    /**
     * For the console's open alerts: how many dead letters wait, of every key, for system operators; null for anyone
     * else (a partner's dead letters are a partner's and an operator's matter, not a merchant's).
     */
    deadLetterCount: (caller: Caller) => (isOperator(caller) ? deliveries.countDead() : null),

    /** One key's recent deliveries in any status (or one), for its admins: what was sent, how often, with what answer. */
    async deliveries(caller: Caller, client_id: string, filter: { status?: string | null; limit?: number | null }) {
      await reachableKey(caller, client_id);
      const { limit } = parsePage({ limit: filter.limit });
      return deliveries.list({ client_id, status: filter.status ?? undefined }, limit);
    },

    ...partnerRecovery(reachableKey, webhookRecovery(deps)),

    /** Sends a dead letter again, with its id and body, three attempts as before. */
    async replay(caller: Caller, id: string) {
      const dead = await deliveries.find(id);
      if (!dead) throw notFound("webhook delivery");
      // A revoked key has no admins but the system operators.
      if (await partners.webhookOf(dead.client_id)) await reachableKey(caller, dead.client_id);
      else requireOperator(caller);
      webhookDeliveryMachine.transition(dead.status, "replay");
      const replayed = await deliveries.replay(id, clock());
      if (!replayed) throw new AppError("invalid_state", "the delivery was replayed meanwhile", { event: "replay" });
      deps.onDue();
      return replayed;
    },
  };
}

/** A partner's recovery of missed webhooks, each for a key checked against the caller first. */
function partnerRecovery(
  reachableKey: (caller: Caller, client_id: string) => Promise<{ client_partner_id: number }>,
  recovery: ReturnType<typeof webhookRecovery>,
) {
  return {
    /** One key's deliveries with their attempts, newest first, by status, event type and creation time. */
    async deliveriesPage(caller: Caller, client_id: string, args: Parameters<typeof recovery.deliveriesPage>[1]) {
      await reachableKey(caller, client_id);
      return recovery.deliveriesPage(client_id, args);
    },

    /** A delivered or dead delivery of the key sent again: the same event id and body, a new round of attempts. */
    async redeliver(caller: Caller, client_id: string, id: string) {
      await reachableKey(caller, client_id);
      return recovery.redeliver(client_id, id);
    },

    /** The key's dead letters since a time sent again, oldest first. */
    async redeliverDeadSince(caller: Caller, input: { client_id: string; since?: unknown }) {
      const { client_id, ...since } = input;
      await reachableKey(caller, client_id);
      return recovery.redeliverDeadSince(client_id, since);
    },

    /** The events the key was or would have been sent, in the order they were written. */
    async events(caller: Caller, client_id: string, args: Parameters<typeof recovery.events>[2]) {
      const key = await reachableKey(caller, client_id);
      return recovery.events(client_id, key.client_partner_id, args);
    },

    /** The dispatcher's: a key's endpoint answered 2xx. */
    afterDelivered: recovery.afterDelivered,
    /** The probe job's. */
    probeDeadLetters: recovery.probeDeadLetters,
  };
}
