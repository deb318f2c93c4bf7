export type { MerchantSyncService } from "./merchant-sync.service";
export type { PartnerService } from "./partner.service";
export type { StoreResolver } from "./store-resolver.service";
export { requireCurrentSync } from "./sync-lease.rules";
