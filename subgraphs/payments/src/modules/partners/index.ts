export type { MerchantSyncService } from "./merchant-sync.service";
export type { PartnerService } from "./partner.service";
export type { StoreResolver } from "./store-resolver";
export { requireCurrentSync } from "./sync-lease";
