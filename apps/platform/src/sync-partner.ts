import { AppError, type Caller } from "@pos-cloud/common";
import type { PartnerService } from "@pos-cloud/payments";
import type { GatewaySyncConfig } from "@pos-cloud/portal";

/** The client_id of the portal's API key at the embedded gateway: one fixed name, so every start finds the same key. */
export const PORTAL_SYNC_CLIENT_ID = "portal-gateway-sync";

const platform: Caller = { type: "service", id: "platform", scopes: [] };

export type SyncPartner = Omit<GatewaySyncConfig, "url">;

/** A key that expires sooner than this is replaced at start, so the platform's own sync never meets its expiry. */
const RENEW_WITHIN_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The platform's own POS partner at the embedded gateway, for which the portal syncs every merchant: found by the
 * portal's fixed client_id, else created with that key. Its newest usable secret signs the sync; when that expires
 * within 30 days, a new secret of the same client_id is issued (the old one runs out by itself).
 */
export async function ensureSyncPartner(partners: PartnerService, now = new Date()): Promise<SyncPartner> {
  const found = async () => {
    const credentials = await partners.credentialsFor(platform, PORTAL_SYNC_CLIENT_ID);
    if (!credentials) return null;
    const key = credentials.keys.find((each) => !each.revoked && each.expires_at > now);
    return {
      clientPartnerId: credentials.client_partner_id,
      usable: key && {
        clientId: PORTAL_SYNC_CLIENT_ID,
        secret: key.secret,
        clientPartnerId: credentials.client_partner_id,
      },
      renew: !key || key.expires_at.getTime() - now.getTime() < RENEW_WITHIN_MS,
    };
  };
  const existing = await found();
  if (existing?.usable && !existing.renew) return existing.usable;
  const partner = existing ?? { clientPartnerId: (await partners.createPartner("Platform POS partner")).id };
  try {
    const key = await partners.issueApiKey(partner.clientPartnerId, { client_id: PORTAL_SYNC_CLIENT_ID });
    return { clientId: key.client_id, secret: key.secret, clientPartnerId: partner.clientPartnerId };
  } catch (error) {
    // Another instance on the same database created (or renewed) it first; its key is the one.
    const other = error instanceof AppError && error.code === "conflict" ? (await found())?.usable : undefined;
    if (!other) throw error;
    return other;
  }
}
