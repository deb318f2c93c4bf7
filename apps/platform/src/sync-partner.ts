import { AppError, type Caller } from "@pos-cloud/common";
import type { PartnerService } from "@pos-cloud/payments";
import type { GatewaySyncConfig } from "@pos-cloud/portal";

/** The client_id of the portal's API key at the embedded gateway: one fixed name, so every start finds the same key. */
export const PORTAL_SYNC_CLIENT_ID = "portal-gateway-sync";

const platform: Caller = { type: "service", id: "platform", scopes: [] };

export type SyncPartner = Omit<GatewaySyncConfig, "url">;

/**
 * The platform's own POS partner at the embedded gateway, for which the portal syncs every merchant: found by the
 * portal's fixed client_id, else created with that key. Its newest active secret signs the sync.
 */
export async function ensureSyncPartner(partners: PartnerService): Promise<SyncPartner> {
  const found = async () => {
    const credentials = await partners.credentialsFor(platform, PORTAL_SYNC_CLIENT_ID);
    return (
      credentials && {
        clientId: PORTAL_SYNC_CLIENT_ID,
        secret: credentials.secrets[0]!,
        clientPartnerId: credentials.client_partner_id,
      }
    );
  };
  const existing = await found();
  if (existing) return existing;
  const partner = await partners.createPartner("Platform POS partner");
  try {
    const key = await partners.issueApiKey(partner.id, { client_id: PORTAL_SYNC_CLIENT_ID });
    return { clientId: key.client_id, secret: key.secret, clientPartnerId: partner.id };
  } catch (error) {
    // Another instance on the same database created it first; its partner is the one.
    const other = error instanceof AppError && error.code === "conflict" ? await found() : null;
    if (!other) throw error;
    return other;
  }
}
