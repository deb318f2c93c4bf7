import { AppError, type Caller, type SecretBox } from "@pos-cloud/common";
import { parseSyncInput } from "./merchant-sync.input";
import type { MerchantSyncRepository } from "./merchant-sync.repository";
import { partnerIdOf } from "./partner-caller";

export type MerchantSyncService = ReturnType<typeof merchantSyncService>;

export function merchantSyncService(sync: MerchantSyncRepository, box: SecretBox) {
  return {
    /** Upserts the partner's merchants, stores and provider configs (credentials sealed, never returned). */
    async syncMerchants(caller: Caller, input: unknown) {
      const client_partner_id = partnerIdOf(caller);
      const parsed = parseSyncInput(input);
      if (parsed.client_partner_id !== undefined && parsed.client_partner_id !== client_partner_id) {
        throw new AppError("forbidden", "client_partner_id is not the signing partner", { field: "client_partner_id" });
      }
      await sync.upsert(client_partner_id, parsed.merchants, box.seal);
      return {
        synced_merchants: parsed.merchants.length,
        synced_stores: parsed.merchants.reduce((total, merchant) => total + merchant.stores.length, 0),
      };
    },
  };
}
