import { AppError, type Caller, partnerIdOf, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import { parseSyncInput } from "./merchant-sync.input";
import type { MerchantSyncRepository, UpsertOptions } from "./merchant-sync.repository";
import { SYNC_LEASE_MS } from "./sync-lease";

export type MerchantSyncService = ReturnType<typeof merchantSyncService>;

/**
 * Merchant and store ids are the portal's: the platform's sync partner creates them by syncing; any other partner
 * syncs only the merchants and stores an operator granted it (docs/decisions.md, "Settings sync to the gateway").
 */
export function merchantSyncService(sync: MerchantSyncRepository, box: SecretBox, clock: Clock) {
  async function upsert(client_partner_id: number, input: unknown, options: UpsertOptions) {
    const parsed = parseSyncInput(input);
    if (parsed.client_partner_id !== undefined && parsed.client_partner_id !== client_partner_id) {
      throw new AppError("forbidden", "client_partner_id is not the signing partner", { field: "client_partner_id" });
    }
    await sync.upsert(client_partner_id, parsed.merchants, box.seal, options);
    return {
      synced_merchants: parsed.merchants.length,
      synced_stores: parsed.merchants.reduce((total, merchant) => total + merchant.stores.length, 0),
    };
  }

  return {
    /**
     * Upserts the partner's merchants, stores and provider configs (credentials sealed, never returned). A sync by the
     * platform's sync partner also renews its stores' lease.
     */
    async syncMerchants(caller: Caller, input: unknown) {
      const client_partner_id = partnerIdOf(caller);
      const isSyncPartner = await sync.isSyncPartner(client_partner_id);
      return upsert(client_partner_id, input, {
        claim: isSyncPartner,
        synced_until: isSyncPartner ? new Date(clock().getTime() + SYNC_LEASE_MS) : undefined,
      });
    },

    /**
     * An operator gives a partner merchant and store ids (a sync body), which it may then sync itself. Ids another
     * partner holds are refused. There is no API for it, as for partners and their keys.
     */
    grant: (client_partner_id: number, input: unknown) => upsert(client_partner_id, input, { claim: true }),
  };
}
