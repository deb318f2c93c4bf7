import { randomBytes } from "node:crypto";
import { AppError, type Caller, newUlid, requireService, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { ApiKey } from "../../generated/prisma/client";
import type { PartnerRepository } from "./partner.repository";

export type PartnerService = ReturnType<typeof partnerService>;

/** While a secret rotates, the old and the new one both verify; a third would make rotation open-ended. */
const MAX_ACTIVE_SECRETS = 2;

export interface IssuedApiKey {
  id: string;
  client_partner_id: number;
  client_id: string;
  secret: string;
  webhook_secret: string;
}

export interface ApiKeyWebhook {
  client_partner_id: number;
  /** The partner's PSP; null for a platform partner. */
  psp_id: number | null;
  client_id: string;
  webhook_url: string | null;
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
const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

export function partnerService(partners: PartnerRepository, box: SecretBox, clock: Clock) {
  const webhookTarget = (key: ApiKey, webhook_url: string, now: Date): WebhookTarget => {
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
  };

  return {
    /** A partner of one PSP (`psp_id`), whose admins manage its webhooks, or a platform partner (none). */
    createPartner: (name: string, options: { psp_id?: number } = {}) => partners.createPartner(name, options.psp_id),

    /**
     * Makes this partner the gateway's sync partner, the only one whose sync creates merchant and store ids (the
     * portal's), and takes that from any other. The platform calls it at start for the partner its portal syncs as.
     */
    async designateSyncPartner(client_partner_id: number): Promise<void> {
      if (!(await partners.findPartner(client_partner_id))) throw new AppError("not_found", "client partner not found");
      await partners.designateSyncPartner(client_partner_id);
    },

    /**
     * Issues an HMAC secret (and a webhook secret) for a client_id: a new client_id when none is given, or a second
     * secret of an existing one to rotate it. Secrets are returned once and kept only sealed.
     */
    async issueApiKey(client_partner_id: number, options: { client_id?: string } = {}): Promise<IssuedApiKey> {
      if (!(await partners.findPartner(client_partner_id))) throw new AppError("not_found", "client partner not found");
      const client_id = options.client_id ?? `cl_${randomBytes(12).toString("hex")}`;
      const active = await partners.activeKeys(client_id);
      if (active.some((key) => key.client_partner_id !== client_partner_id)) {
        throw new AppError("conflict", "client_id belongs to another client partner", { field: "client_id" });
      }
      if (active.length >= MAX_ACTIVE_SECRETS) {
        throw new AppError("conflict", "two secrets are already active; revoke one first", { field: "client_id" });
      }
      const secret = randomBytes(32).toString("hex");
      // A second secret of a client_id keeps the client_id's webhook settings: they are the client_id's, not a secret's.
      const current = active[0];
      const webhook_secret = current?.webhook_secret_sealed
        ? box.open(current.webhook_secret_sealed)
        : newWebhookSecret();
      const key = await partners.createKey({
        id: newUlid(),
        client_partner_id,
        client_id,
        secret_sealed: box.seal(secret),
        webhook_secret_sealed: box.seal(webhook_secret),
        webhook_url: current?.webhook_url ?? null,
        previous_webhook_secret_sealed: current?.previous_webhook_secret_sealed ?? null,
        previous_webhook_secret_expires_at: current?.previous_webhook_secret_expires_at ?? null,
      });
      return { id: key.id, client_partner_id, client_id, secret, webhook_secret };
    },

    async revokeApiKey(client_partner_id: number, id: string): Promise<void> {
      const { count } = await partners.revokeKey(id, client_partner_id, clock());
      if (count === 0) throw new AppError("not_found", "active API key not found");
    },

    /** The webhook of a client_id with the partner (and its PSP) that owns it; null when no active key has it. */
    async webhookOf(client_id: string): Promise<ApiKeyWebhook | null> {
      const key = (await partners.activeKeys(client_id))[0];
      if (!key) return null;
      const partner = await partners.findPartner(key.client_partner_id);
      return {
        client_partner_id: key.client_partner_id,
        psp_id: partner?.psp_id ?? null,
        client_id,
        webhook_url: key.webhook_url,
      };
    },

    setWebhookUrl: (client_id: string, webhook_url: string | null) =>
      partners.updateWebhook(client_id, { webhook_url }),

    /**
     * Gives the client_id a new webhook secret, returned once; the one it replaces keeps signing beside it until
     * `previousUntil`. A rotation replaces the previous secret of an earlier one at once.
     */
    async rotateWebhookSecret(client_id: string, previousUntil: Date): Promise<string> {
      const current = (await partners.activeKeys(client_id))[0];
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
      const keys = await partners.webhookKeys(client_partner_id);
      return keys.flatMap((key) => (key.webhook_url ? [webhookTarget(key, key.webhook_url, clock())] : []));
    },

    /** The client_id's target now, or null once its webhook is removed or its key revoked. */
    async webhookTarget(client_id: string): Promise<WebhookTarget | null> {
      const key = (await partners.activeKeys(client_id))[0];
      return key?.webhook_url ? webhookTarget(key, key.webhook_url, clock()) : null;
    },

    /** The active secrets of a client_id, for the edge to verify a signature; null when the client_id is unknown. */
    async credentialsFor(caller: Caller, client_id: string) {
      requireService(caller);
      const active = await partners.activeKeys(client_id);
      const first = active[0];
      if (!first) return null;
      return { client_partner_id: first.client_partner_id, secrets: active.map((key) => box.open(key.secret_sealed)) };
    },
  };
}
