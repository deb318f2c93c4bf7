import { randomBytes } from "node:crypto";
import { AppError, type Caller, newUlid, notFound, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { ApiKeyRestriction } from "./api-key.inputs";
import type { IssueRefusal, PartnerRepository, WebhookSettings } from "./partner.repository";
import type { PartnerAuditEvent } from "./partner-audit.repository";
import { newWebhookSecret } from "./partner-webhooks.service";

/**
 * A partner holds usable keys of at most five client_ids: restricted keys make several natural (the platform's own
 * partner holds its portal's sync key and POS's payments key), and each more is one more secret to leak.
 */
export const MAX_CLIENT_IDS = 5;

/**
 * A client_id holds at most two usable secrets: while it rotates, the old and the new one both verify; a third would
 * make rotation open-ended.
 */
export const MAX_SECRETS = 2;

/** After a partner rotates its own key, the key it signed with keeps working this long (unless it expires sooner). */
export const ROTATION_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IssuedApiKey {
  id: string;
  client_partner_id: number;
  client_id: string;
  secret: string;
  webhook_secret: string;
  created_at: Date;
  expires_at: Date;
  permissions: string[];
  store_ids: number[];
}

const unrestricted: ApiKeyRestriction = { permissions: [], store_ids: [] };

const refusals: Record<IssueRefusal, () => AppError> = {
  not_found: () => notFound("client partner"),
  inactive: () => new AppError("invalid_state", "the client partner is deactivated; it gets no new API keys"),
  limit: () =>
    new AppError(
      "conflict",
      `a client partner holds active API keys of at most ${MAX_CLIENT_IDS} client_ids; revoke one first`,
      {
        field: "api_keys",
        constraint: `max_active_${MAX_CLIENT_IDS}`,
      },
    ),
  rotating: () =>
    new AppError(
      "conflict",
      `this client_id has ${MAX_SECRETS} usable secrets already (a rotation's overlap); rotate again once the older one expires, or ask an operator to revoke it`,
      { field: "api_keys", constraint: `max_secrets_${MAX_SECRETS}` },
    ),
};

/**
 * A key that is no longer its client_id's newest (rotated out, or its successor revoked) signs payments until it
 * expires but manages nothing: a leaked old secret must not repoint webhooks or mint keys (docs/decisions/gateway.md,
 * "What a rotated-out key may still do").
 */
const rotatedOut = () =>
  new AppError(
    "forbidden",
    "this API key was rotated out: it may still sign payment requests until it expires, but managing keys and webhooks takes the client_id's newest key",
    { field: "authorization", constraint: "newest_api_key" },
  );

/** The client_id's webhook settings a further secret of it keeps. */
const keptWebhook = (current: WebhookSettings | undefined) => ({
  webhook_url: current?.webhook_url ?? null,
  previous_webhook_secret_sealed: current?.previous_webhook_secret_sealed ?? null,
  previous_webhook_secret_expires_at: current?.previous_webhook_secret_expires_at ?? null,
});

/** A partner manages a client_id (its keys, its webhook) only with the newest key issued of it; others pass. */
const newestKeyCheck =
  (partners: PartnerRepository) =>
  async (caller: Caller, client_id: string): Promise<void> => {
    if (caller.type !== "partner") return;
    const newest = await partners.newestKey(client_id);
    if (!newest || newest.id !== caller.apiKeyId) throw rotatedOut();
  };

/** A partner's keys issued, rotated and revoked; a key lives `keyLifetimeDays`. */
export function apiKeyIssuance(partners: PartnerRepository, box: SecretBox, clock: Clock, keyLifetimeDays: number) {
  /**
   * Issues a secret (and a webhook secret) for a client_id: a new client_id when none is given, or a further secret
   * of an existing one, which keeps the client_id's webhook settings and its restriction (they are the client_id's,
   * not a secret's) unless `restriction` names another. Secrets are returned once and kept only sealed.
   */
  async function issue(
    client_partner_id: number,
    options: {
      client_id?: string;
      actor: Caller | null;
      event: PartnerAuditEvent;
      rotating?: boolean;
      restriction?: ApiKeyRestriction;
    },
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
    const { permissions, store_ids } = options.restriction ?? current ?? unrestricted;
    const result = await partners.issueKey(
      {
        id: newUlid(now.getTime()),
        client_partner_id,
        client_id,
        secret_sealed: box.seal(secret),
        expires_at,
        webhook_secret_sealed: box.seal(webhook_secret),
        ...keptWebhook(current),
        permissions,
        store_ids,
      },
      {
        maxClientIds: MAX_CLIENT_IDS,
        maxSecrets: MAX_SECRETS,
        now,
        shorten: options.rotating ? new Date(now.getTime() + ROTATION_OVERLAP_MS) : undefined,
      },
      {
        event: options.event,
        actor: options.actor,
        metadata: { client_partner_id, client_id, expires_at: expires_at.toISOString(), permissions, store_ids },
      },
    );
    if ("refused" in result) throw refusals[result.refused]();
    const { id } = result.key;
    return {
      id,
      client_partner_id,
      client_id,
      secret,
      webhook_secret,
      created_at: now,
      expires_at,
      permissions,
      store_ids,
    };
  }

  const requireNewestKey = newestKeyCheck(partners);

  return {
    /**
     * A key for the partner: of a new client_id, or a further secret of `client_id` (the platform's own keys),
     * restricted to `restriction` (a further secret without one keeps its client_id's).
     */
    issueApiKey: (
      client_partner_id: number,
      options: { client_id?: string; actor?: Caller; restriction?: ApiKeyRestriction } = {},
    ) => issue(client_partner_id, { ...options, actor: options.actor ?? null, event: "api_key.issued" }),

    /**
     * The platform's own next secret of one of its client_ids, before the current one expires. Unlike a rotation,
     * the current secret keeps its expiry: a process that still holds it (a cluster's POS) goes on until it restarts.
     * The new secret keeps the client_id's restriction, unless `restriction` names the one the platform now wants.
     */
    renewApiKey: (client_partner_id: number, client_id: string, restriction?: ApiKeyRestriction) =>
      issue(client_partner_id, { client_id, actor: null, event: "api_key.renewed", restriction }),

    /**
     * The partner's next secret of the client_id it signs with; the client_id's other secrets expire within
     * `ROTATION_OVERLAP_MS`, so the partner has that long to switch.
     */
    async rotateApiKey(client_partner_id: number, client_id: string, actor: Caller): Promise<IssuedApiKey> {
      const signing = (await partners.activeKeys(client_id, clock()))[0];
      if (signing?.client_partner_id !== client_partner_id) throw notFound("API key");
      await requireNewestKey(actor, client_id);
      return issue(client_partner_id, { client_id, actor, event: "api_key.rotated", rotating: true });
    },

    requireNewestKey,

    async revokeApiKey(client_partner_id: number, id: string, actor: Caller | null = null): Promise<void> {
      const change = { event: "api_key.revoked" as const, actor, target: { type: "api_key" as const, id } };
      if (!(await partners.revokeKey(id, client_partner_id, change, clock()))) {
        throw new AppError("not_found", "active API key not found");
      }
    },
  };
}
