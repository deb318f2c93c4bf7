import type { Caller } from "./caller";

/**
 * The seven human tiers. Role names follow the spec's role claim (SYSTEM_OP, PSP_ADMIN, MERCHANT_ADMIN,
 * STORE_MANAGER, STAFF) and add the three it does not list.
 */
export const roles = {
  SYSTEM_OP: 0,
  PSP_ADMIN: 1,
  MERCHANT_ADMIN: 2,
  AREA_MANAGER: 3,
  STORE_MANAGER: 4,
  STAFF_LEADER: 5,
  STAFF: 6,
} as const;

export type Role = keyof typeof roles;
export type Tier = (typeof roles)[Role];

export const isRole = (value: unknown): value is Role => typeof value === "string" && Object.hasOwn(roles, value);

/** The caller's tier, or undefined for callers that are not humans. Lower is more powerful. */
export function tierOf(caller: Caller): Tier | undefined {
  return caller.type === "user" && isRole(caller.role) ? roles[caller.role] : undefined;
}

/** Where a tenant resource sits in the hierarchy. */
export interface TenantPath {
  pspId: number;
  merchantId?: number;
  areaId?: string | null;
  storeId?: number;
}

/**
 * Whether a caller may reach a resource at this place in the hierarchy: L0 everything, L1 its PSP, L2 its merchant,
 * L3 its area's stores, L4 to L6 and devices their one store. Services apply this to every read and write;
 * repositories filter lists the same way.
 */
export function canReach(caller: Caller, path: TenantPath): boolean {
  if (caller.type === "device") return path.storeId !== undefined && path.storeId === caller.storeId;
  const tier = tierOf(caller);
  if (tier === undefined) return false;
  if (tier === 0) return true;
  if (tier === 1) return path.pspId === caller.pspId;
  if (path.merchantId === undefined || path.merchantId !== caller.merchantId) return false;
  if (tier === 2) return true;
  if (tier === 3) return path.storeId !== undefined && path.areaId != null && path.areaId === caller.areaId;
  return path.storeId !== undefined && path.storeId === caller.storeId;
}
