import { randomBytes } from "node:crypto";
import { AppError, type Caller, newUlid, notFound, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { IssueRefusal, PartnerRepository } from "./partner.repository";
import type { PartnerAuditEvent } from "./partner-audit";
import { newWebhookSecret } from "./partner-webhooks";

/**
 * A partner holds at most two usable keys: while it rotates, the old and the new one both verify; a third would make
 * rotation open-ended.
 */
export const MAX_ACTIVE_KEYS = 2;

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
}

const refusals: Record<IssueRefusal, () => AppError> = {
  not_found: () => notFound("client partner"),
  inactive: () => new AppError("invalid_state", "the client partner is deactivated; it gets no new API keys"),
  limit: () =>
    new AppError("conflict", `a client partner holds at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first`, {
      field: "api_keys",
      constraint: `max_active_${MAX_ACTIVE_KEYS}`,
    }),
};

/** A partner's keys issued, rotated and revoked; a key lives `keyLifetimeDays`. */
export function apiKeyIssuance(partners: PartnerRepository, box: SecretBox, clock: Clock, keyLifetimeDays: number) {
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
  };
}
