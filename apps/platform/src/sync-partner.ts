import { AppError, type Caller, logger } from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import { metrics } from "@pos-cloud/common/metrics";
import type { PartnerService } from "@pos-cloud/payments";
import type { GatewaySyncConfig } from "@pos-cloud/portal";
import { Counter, Gauge } from "prom-client";

/** The client_id of the portal's API key at the embedded gateway: one fixed name, so every start finds the same key. */
export const PORTAL_SYNC_CLIENT_ID = "portal-gateway-sync";

/** The client_id POS signs its payments with at the gateway, beside the portal's sync key of the same partner. */
export const POS_PAYMENTS_CLIENT_ID = "pos-gateway-payments";

/**
 * The platform's own keys, each restricted to what its holder does (docs/decisions/gateway.md, "Restricted API
 * keys"): a leaked sync key creates no payment, a leaked POS key rewrites no tenant.
 */
export const platformKeys = {
  sync: { clientId: PORTAL_SYNC_CLIENT_ID, permissions: ["sync:write"] },
  pos: {
    clientId: POS_PAYMENTS_CLIENT_ID,
    permissions: ["payment_intents:write", "payment_intents:read", "refunds:write"],
  },
} as const;

type OwnKey = keyof typeof platformKeys;
const ownKeys = Object.keys(platformKeys) as OwnKey[];

const platform: Caller = { type: "service", id: "platform", scopes: [] };

export type SyncPartner = Omit<GatewaySyncConfig, "url">;

/** The platform's own credentials: the portal's sync signs with `sync`, POS's payments with `pos`. */
export type PlatformKeys = Record<OwnKey, SyncPartner>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A key that expires sooner than this is renewed, so the platform's own sync never meets its expiry. */
export const RENEW_WITHIN_MS = 30 * DAY_MS;

/** How often the renewal job looks: far more often than the 30 days it has, so a failure is retried for weeks. */
export const RENEWAL_CHECK_MS = 60 * 60 * 1000;

const keyMetrics = {
  expiry: new Gauge({
    name: "platform_api_key_expiry_timestamp_seconds",
    help: "When the platform's own newest usable API key of a client_id expires (Unix seconds; 0: none is usable).",
    labelNames: ["client_id"] as const,
    registers: [metrics],
  }),
  renewals: new Counter({
    name: "platform_api_key_renewals_total",
    help: "Renewals of the platform's own API keys by client_id and outcome (renewed, failed).",
    labelNames: ["client_id", "outcome"] as const,
    registers: [metrics],
  }),
};

type UsableKey = SyncPartner & { expiresAt: Date; permissions: string[] };

const expirySeconds = (at: Date | undefined) => (at ? Math.floor(at.getTime() / 1000) : 0);

/** The partner and its newest usable key of one of the platform's client_ids; null before that key's first issue. */
async function ownKeyOf(partners: PartnerService, which: OwnKey, now: Date) {
  const { clientId } = platformKeys[which];
  const credentials = await partners.credentialsFor(platform, clientId);
  if (!credentials) return null;
  const key = credentials.keys.find((each) => !each.revoked && each.expires_at > now);
  keyMetrics.expiry.set({ client_id: clientId }, expirySeconds(key?.expires_at));
  const usable: UsableKey | undefined = key && {
    clientId,
    secret: key.secret,
    clientPartnerId: credentials.client_partner_id,
    expiresAt: key.expires_at,
    permissions: key.permissions,
  };
  return { clientPartnerId: credentials.client_partner_id, usable };
}

/** Every key of the platform found now, and the partner that holds them (null before the first start). */
async function ownKeysOf(partners: PartnerService, now: Date) {
  const found = { sync: await ownKeyOf(partners, "sync", now), pos: await ownKeyOf(partners, "pos", now) };
  return { found, clientPartnerId: (found.sync ?? found.pos)?.clientPartnerId };
}

/**
 * Whether a key is to be renewed: none is usable, it expires within 30 days, or it is not restricted as the platform
 * now restricts it (an install from before the restriction: its key keeps working until it expires).
 */
const due = (which: OwnKey, key: UsableKey | undefined, now: Date) =>
  !key ||
  key.expiresAt.getTime() - now.getTime() < RENEW_WITHIN_MS ||
  key.permissions.join(" ") !== platformKeys[which].permissions.join(" ");

/**
 * A new secret of one of the platform's client_ids, on record as `api_key.renewed` (`api_key.issued` for its first).
 * When another instance renewed first (the client_id then holds two usable secrets), its key is the one; any other
 * refusal is thrown, never hidden behind the old key: that is how the platform's payments once stopped unnoticed 180
 * days after install.
 */
async function renewOwnKey(
  partners: PartnerService,
  which: OwnKey,
  clientPartnerId: number,
  previous: UsableKey | undefined,
  now: Date,
): Promise<UsableKey> {
  const { clientId, permissions } = platformKeys[which];
  const restriction = { permissions: [...permissions], store_ids: [] };
  try {
    const key = previous
      ? await partners.renewApiKey(clientPartnerId, clientId, restriction)
      : await partners.issueApiKey(clientPartnerId, { client_id: clientId, restriction });
    keyMetrics.expiry.set({ client_id: clientId }, expirySeconds(key.expires_at));
    if (previous) {
      keyMetrics.renewals.inc({ client_id: clientId, outcome: "renewed" });
      logger.info("the platform's API key was renewed", {
        client_id: clientId,
        api_key_id: key.id,
        expires_at: key.expires_at.toISOString(),
        previous_expires_at: previous.expiresAt.toISOString(),
      });
    }
    return { clientId, secret: key.secret, clientPartnerId, expiresAt: key.expires_at, permissions: key.permissions };
  } catch (error) {
    const other =
      error instanceof AppError && error.code === "conflict"
        ? (await ownKeyOf(partners, which, now))?.usable
        : undefined;
    if (other && other.secret !== previous?.secret) return other;
    keyMetrics.renewals.inc({ client_id: clientId, outcome: "failed" });
    throw error;
  }
}

const withoutExpiry = ({ expiresAt: _, permissions: __, ...partner }: UsableKey): SyncPartner => partner;

/**
 * One of the platform's keys at start: the newest usable one, or a new one when it is due. A renewal that fails while
 * a key still works does not stop the start: it is logged for the alert and the job tries again.
 */
async function ensureOwnKey(
  partners: PartnerService,
  which: OwnKey,
  clientPartnerId: number,
  existing: UsableKey | undefined,
  now: Date,
): Promise<SyncPartner> {
  if (existing && !due(which, existing, now)) return withoutExpiry(existing);
  try {
    return withoutExpiry(await renewOwnKey(partners, which, clientPartnerId, existing, now));
  } catch (error) {
    if (!existing) throw error;
    logger.error("the platform's API key could not be renewed", {
      alert: "platform_api_key_renewal_failed",
      client_id: existing.clientId,
      expires_at: existing.expiresAt.toISOString(),
      error,
    });
    return withoutExpiry(existing);
  }
}

/**
 * The platform's own POS partner at the embedded gateway, for which the portal syncs every merchant and as which POS
 * takes payments: found by its fixed client_ids, else created with their keys. Each key is renewed when due; an
 * install whose partner holds only the old all-purpose sync key gets POS's key here, and that old key keeps working
 * until it expires (a POS process that still holds it goes on).
 */
export async function ensurePlatformKeys(partners: PartnerService, now = new Date()): Promise<PlatformKeys> {
  const { found, clientPartnerId: existing } = await ownKeysOf(partners, now);
  const clientPartnerId = existing ?? (await partners.createPartner("Platform POS partner")).id;
  return {
    sync: await ensureOwnKey(partners, "sync", clientPartnerId, found.sync?.usable, now),
    pos: await ensureOwnKey(partners, "pos", clientPartnerId, found.pos?.usable, now),
  };
}

/**
 * The registry's job that renews the platform's keys while the platform runs (a start alone would leave a platform
 * that runs 150 days without one to meet the expiry), and hands the newest usable keys to `use` whenever one changes:
 * a renewal here, or another instance's. A failed run is logged with the alert `platform_api_key_renewal_failed`.
 */
export function platformKeyRenewalJob(deps: {
  partners: PartnerService;
  clock: () => Date;
  use: (keys: PlatformKeys) => Promise<void> | void;
}): Job {
  let inUse: string | undefined;
  return {
    name: "platform-key-renewal",
    schedule: { everyMs: RENEWAL_CHECK_MS },
    runAtStart: true,
    alert: "platform_api_key_renewal_failed",
    async run() {
      const now = deps.clock();
      const { found, clientPartnerId } = await ownKeysOf(deps.partners, now);
      if (clientPartnerId === undefined) return;
      const keys: Partial<Record<OwnKey, UsableKey>> = {};
      const failures: unknown[] = [];
      for (const which of ownKeys) {
        keys[which] = found[which]?.usable;
        if (!due(which, keys[which], now)) continue;
        keys[which] = await renewOwnKey(deps.partners, which, clientPartnerId, keys[which], now).catch((error) => {
          failures.push(error);
          return keys[which];
        });
      }
      // Even when a renewal failed: the newest usable keys (another instance's, say) are the ones to sign with.
      const { sync, pos } = keys;
      if (sync && pos && `${sync.secret} ${pos.secret}` !== inUse) {
        await deps.use({ sync: withoutExpiry(sync), pos: withoutExpiry(pos) });
        inUse = `${sync.secret} ${pos.secret}`;
      }
      if (failures.length > 0) throw failures[0];
    },
  };
}
