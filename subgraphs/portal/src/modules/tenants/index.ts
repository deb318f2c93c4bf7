export { auditScope, deviceScope, storeScopeSql } from "./scope";
export { storeClosed, storeClosedReason } from "./store-at-work";
export { merchantPath, present, storePath, type TenantService } from "./tenant.service";
