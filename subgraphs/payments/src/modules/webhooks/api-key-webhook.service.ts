import { AppError, type Caller, notFound, parsePage, requireApiKeyAccess, requireOperator } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PartnerService } from "../partners/partner.service";
import { webhookDeliveryMachine } from "./webhook-delivery.machine";
import type { WebhookDeliveryRepository } from "./webhook-delivery.repository";
import { parseWebhookUrl } from "./webhook-url";

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
    return key;
  }

  return {
    async webhook(caller: Caller, client_id: string) {
      const { webhook_url } = await reachableKey(caller, client_id);
      return { client_id, webhook_url };
    },

    async setWebhook(caller: Caller, input: { client_id: string; webhook_url: string }) {
      await reachableKey(caller, input.client_id);
      const webhook_url = parseWebhookUrl(input.webhook_url, deps.allowPrivateUrls);
      await partners.setWebhookUrl(input.client_id, webhook_url);
      return { client_id: input.client_id, webhook_url };
    },

    /** Removing a webhook that is not set is not an error: the key ends without one either way. */
    async deleteWebhook(caller: Caller, client_id: string): Promise<boolean> {
      await reachableKey(caller, client_id);
      await partners.setWebhookUrl(client_id, null);
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

    /** One key's recent deliveries in any status (or one), for its admins: what was sent, how often, with what answer. */
    async deliveries(caller: Caller, client_id: string, filter: { status?: string | null; limit?: number | null }) {
      await reachableKey(caller, client_id);
      const { limit } = parsePage({ limit: filter.limit });
      return deliveries.list({ client_id, status: filter.status ?? undefined }, limit);
    },

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
