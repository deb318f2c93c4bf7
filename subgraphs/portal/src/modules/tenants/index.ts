export { storeClosed, storeClosedReason } from "./store-at-work.rules";
export { merchantPath, present, storePath, type TenantService } from "./tenant.service";
export { auditScope, deviceScope, storeScopeSql } from "./tenant-scope.rules";
