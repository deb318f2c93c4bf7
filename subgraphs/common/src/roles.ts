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
