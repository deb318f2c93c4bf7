import { randomBytes } from "node:crypto";
import { AppError, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { ApiKey } from "../../generated/prisma/client";
import type { PartnerRepository } from "./partner.repository";

export interface ApiKeyWebhook {
  client_partner_id: number;
  /** The partner's PSP; null for a platform partner. */
  psp_id: number | null;
  client_id: string;
  webhook_url: string | null;
  /** What the client_id's keys are restricted to (empty: nothing), shown beside its webhook. */
  permissions: string[];
  store_ids: number[];
}

/** A client_id's webhook: its URL and the secrets that sign a delivery now (the newest first). */
export interface WebhookTarget {
  client_partner_id: number;
  client_id: string;
  webhook_url: string;
  secrets: string[];
}

/**
 * A webhook secret as Standard Webhooks has it: `whsec_` and the base64 (standard alphabet, which their libraries
 * decode) of 32 random bytes, the HMAC key.
 */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

function webhookTarget(box: SecretBox, key: ApiKey, webhook_url: string, now: Date): WebhookTarget {
  const previousValid =
    key.previous_webhook_secret_sealed &&
    key.previous_webhook_secret_expires_at &&
    key.previous_webhook_secret_expires_at > now;
  const sealed = [key.webhook_secret_sealed, previousValid ? key.previous_webhook_secret_sealed : null];
  return {
    client_partner_id: key.client_partner_id,
    client_id: key.client_id,
    webhook_url,
    secrets: sealed.filter((each): each is string => Boolean(each)).map((each) => box.open(each)),
  };
}

/** A client_id's webhook settings, and where and how its webhooks are posted. */
export function partnerWebhooks(partners: PartnerRepository, box: SecretBox, clock: Clock) {
  return {
    /** The webhook of a client_id with the partner (and its PSP) that owns it; null when no usable key has it. */
    async webhookOf(client_id: string): Promise<ApiKeyWebhook | null> {
      const key = (await partners.activeKeys(client_id, clock()))[0];
      if (!key) return null;
      const partner = await partners.findPartner(key.client_partner_id);
      return {
        client_partner_id: key.client_partner_id,
        psp_id: partner?.psp_id ?? null,
        client_id,
        webhook_url: key.webhook_url,
        permissions: key.permissions,
        store_ids: key.store_ids,
      };
    },

    setWebhookUrl: (client_id: string, webhook_url: string | null) =>
      partners.updateWebhook(client_id, { webhook_url }),

    /**
     * Gives the client_id a new webhook secret, returned once; the one it replaces keeps signing beside it until
     * `previousUntil`. A rotation replaces the previous secret of an earlier one at once.
     */
    async rotateWebhookSecret(client_id: string, previousUntil: Date): Promise<string> {
      const current = (await partners.activeKeys(client_id, clock()))[0];
      if (!current) throw new AppError("not_found", "API key not found");
      const webhook_secret = newWebhookSecret();
      const { count } = await partners.updateWebhook(
        client_id,
        {
          webhook_secret_sealed: box.seal(webhook_secret),
          previous_webhook_secret_sealed: current.webhook_secret_sealed,
          previous_webhook_secret_expires_at: current.webhook_secret_sealed ? previousUntil : null,
        },
        current.webhook_secret_sealed,
      );
      if (count === 0) throw new AppError("conflict", "the webhook secret changed meanwhile; rotate again");
      return webhook_secret;
    },

    /** Where and how to post the partner's webhooks now: one target per client_id with a webhook_url. */
    async webhookTargets(client_partner_id: number): Promise<WebhookTarget[]> {
      const now = clock();
      const keys = await partners.webhookKeys(client_partner_id, now);
      return keys.flatMap((key) => (key.webhook_url ? [webhookTarget(box, key, key.webhook_url, now)] : []));
    },

    /** The client_id's target now, or null once its webhook is removed or its keys revoked or expired. */
    async webhookTarget(client_id: string): Promise<WebhookTarget | null> {
      const now = clock();
      const key = (await partners.activeKeys(client_id, now))[0];
      return key?.webhook_url ? webhookTarget(box, key, key.webhook_url, now) : null;
    },
  };
}
