export type { PortalCall } from "./portal.client";
export {
  findInStore,
  findReachable,
  type ReceiptIssuerRecord,
  type StoreAccess,
  type StorePlace,
  storeInactive,
} from "./store-access.service";
