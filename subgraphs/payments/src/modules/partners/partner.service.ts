import { randomBytes } from "node:crypto";
import {
  AppError,
  type Caller,
  checkMasterKey,
  newUlid,
  notFound,
  requireService,
  type SecretBox,
} from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { ApiKey } from "../../generated/prisma/client";
import type { IssueRefusal, PartnerRepository } from "./partner.repository";
import type { PartnerAuditEvent } from "./partner-audit";

export type PartnerService = ReturnType<typeof partnerService>;

/**
 * A partner holds at most two usable keys: while it rotates, the old and the new one both verify; a third would make
 * rotation open-ended.
 */
export const MAX_ACTIVE_KEYS = 2;

/** After a partner rotates its own key, the key it signed with keeps working this long (unless it expires sooner). */
export const ROTATION_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;

/** The spec's rotation period, unless API_KEY_LIFETIME_DAYS says otherwise. */
export const DEFAULT_KEY_LIFETIME_DAYS = 180;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IssuedApiKey {
  id: string;
  client_partner_id: number;
  client_id: string;
  secret: string;
  webhook_secret: string;
  created_at: Date;
  expires_at: Date;
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

export function partnerService(
  partners: PartnerRepository,
  box: SecretBox,
  clock: Clock,
  keyLifetimeDays = DEFAULT_KEY_LIFETIME_DAYS,
) {
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

  const refusals: Record<IssueRefusal, () => AppError> = {
    not_found: () => notFound("client partner"),
    inactive: () => new AppError("invalid_state", "the client partner is deactivated; it gets no new API keys"),
    limit: () =>
      new AppError("conflict", `a client partner holds at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first`, {
        field: "api_keys",
        constraint: `max_active_${MAX_ACTIVE_KEYS}`,
      }),
  };

  /**
   * Issues a secret (and a webhook secret) for a client_id: a new client_id when none is given, or a further secret
   * of an existing one, which keeps the client_id's webhook settings (they are the client_id's, not a secret's).
   * Secrets are returned once and kept only sealed.
   */
  async function issue(
    client_partner_id: number,
    options: { client_id?: string; actor: Caller | null; event: PartnerAuditEvent; rotating?: boolean },
  ): Promise<IssuedApiKey> {
    const now = clock();
    const client_id = options.client_id ?? `cl_${randomBytes(12).toString("hex")}`;
    const active = await partners.activeKeys(client_id, now);
    if (active.some((key) => key.client_partner_id !== client_partner_id)) {
      throw new AppError("conflict", "client_id belongs to another client partner", { field: "client_id" });
    }
    const secret = randomBytes(32).toString("hex");
    const current = active[0];
    const webhook_secret = current?.webhook_secret_sealed
      ? box.open(current.webhook_secret_sealed)
      : newWebhookSecret();
    const expires_at = new Date(now.getTime() + keyLifetimeDays * DAY_MS);
    const result = await partners.issueKey(
      {
        id: newUlid(now.getTime()),
        client_partner_id,
        client_id,
        secret_sealed: box.seal(secret),
        expires_at,
        webhook_secret_sealed: box.seal(webhook_secret),
        webhook_url: current?.webhook_url ?? null,
        previous_webhook_secret_sealed: current?.previous_webhook_secret_sealed ?? null,
        previous_webhook_secret_expires_at: current?.previous_webhook_secret_expires_at ?? null,
      },
      {
        max: MAX_ACTIVE_KEYS,
        now,
        shorten: options.rotating ? new Date(now.getTime() + ROTATION_OVERLAP_MS) : undefined,
      },
      {
        event: options.event,
        actor: options.actor,
        metadata: { client_partner_id, client_id, expires_at: expires_at.toISOString() },
      },
    );
    if ("refused" in result) throw refusals[result.refused]();
    return { id: result.key.id, client_partner_id, client_id, secret, webhook_secret, created_at: now, expires_at };
  }

  return {
    /** Stops with `MasterKeyMismatchError` when the master key does not open the stored secrets (checked on open). */
    async verifyMasterKey(): Promise<void> {
      checkMasterKey(box, "payments", (await partners.newestSealed())?.secret_sealed);
    },
    /** A partner of one PSP (`psp_id`), whose admins manage its webhooks, or a platform partner (none). */
    createPartner: (name: string, options: { psp_id?: number } = {}, actor: Caller | null = null) =>
      partners.createPartner(
        name,
        options.psp_id,
        { event: "partner.created", actor, metadata: { name, psp_id: options.psp_id ?? null } },
        clock(),
      ),

    /** Deactivates the partner and revokes its keys; false when it was deactivated already. */
    async deactivatePartner(client_partner_id: number, actor: Caller | null): Promise<boolean> {
      if (!(await partners.findPartner(client_partner_id))) throw notFound("client partner");
      return partners.deactivatePartner(
        client_partner_id,
        { event: "partner.deactivated", actor, target: { type: "client_partner", id: String(client_partner_id) } },
        clock(),
      );
    },

    /**
     * Makes this partner the gateway's sync partner, the only one whose sync creates merchant and store ids (the
     * portal's), and takes that from any other. The platform calls it at start for the partner its portal syncs as.
     */
    async designateSyncPartner(client_partner_id: number): Promise<void> {
      if (!(await partners.findPartner(client_partner_id))) throw new AppError("not_found", "client partner not found");
      await partners.designateSyncPartner(client_partner_id);
    },

    /** A key for the partner: of a new client_id, or a further secret of `client_id` (the platform's own sync key). */
    issueApiKey: (client_partner_id: number, options: { client_id?: string; actor?: Caller } = {}) =>
      issue(client_partner_id, { client_id: options.client_id, actor: options.actor ?? null, event: "api_key.issued" }),

    /**
     * The partner's next secret of the client_id it signs with; the client_id's other secrets expire within
     * `ROTATION_OVERLAP_MS`, so the partner has that long to switch.
     */
    async rotateApiKey(client_partner_id: number, client_id: string, actor: Caller): Promise<IssuedApiKey> {
      const signing = (await partners.activeKeys(client_id, clock()))[0];
      if (signing?.client_partner_id !== client_partner_id) throw notFound("API key");
      return issue(client_partner_id, { client_id, actor, event: "api_key.rotated", rotating: true });
    },

    async revokeApiKey(client_partner_id: number, id: string, actor: Caller | null = null): Promise<void> {
      const change = { event: "api_key.revoked" as const, actor, target: { type: "api_key" as const, id } };
      if (!(await partners.revokeKey(id, client_partner_id, change, clock()))) {
        throw new AppError("not_found", "active API key not found");
      }
    },

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
      return keys.flatMap((key) => (key.webhook_url ? [webhookTarget(key, key.webhook_url, now)] : []));
    },

    /** The client_id's target now, or null once its webhook is removed or its keys revoked or expired. */
    async webhookTarget(client_id: string): Promise<WebhookTarget | null> {
      const now = clock();
      const key = (await partners.activeKeys(client_id, now))[0];
      return key?.webhook_url ? webhookTarget(key, key.webhook_url, now) : null;
    },

    /**
     * The client_id's recent secrets for the edge to verify a signature, newest first, each with its key's id,
     * expiry and whether it is revoked (a retired secret's signature gets its own error); null when the client_id
     * is unknown.
     */
    async credentialsFor(caller: Caller, client_id: string) {
      requireService(caller);
      const keys = await partners.recentKeys(client_id);
      const first = keys[0];
      if (!first) return null;
      return {
        client_partner_id: first.client_partner_id,
        keys: keys.map((key) => ({
          id: key.id,
          secret: box.open(key.secret_sealed),
          expires_at: key.expires_at,
          revoked: !key.is_active,
        })),
      };
    },

    /** The edge notes that a key signed a verified request (written at most once a minute). */
    async touchApiKey(caller: Caller, id: string): Promise<boolean> {
      requireService(caller);
      await partners.touchKey(id, clock());
      return true;
    },
  };
}
