import {
  AppError,
  type Caller,
  canReach,
  isRole,
  notFound,
  reachOf,
  requireUser,
  roles,
  type TenantPath,
  tierOf,
} from "@pos-cloud/common";
import type { AreaService } from "../areas";
import type { TenantService } from "../tenants";
import type { UserRepository, UserRow, UserScope } from "./user.repository";

export type UserAccess = ReturnType<typeof userAccess>;

/** Where users sit in the tenant hierarchy, and which of them a caller may list and manage. */
export function userAccess(users: UserRepository, areas: AreaService, tenants: TenantService) {
  /** Where a user sits in the tenant hierarchy, as `canReach` reads it; store users take their store's area. */
  async function pathOf(user: Pick<UserRow, "psp_id" | "merchant_id" | "area_id" | "store_id">): Promise<TenantPath> {
    const store = user.store_id === null ? null : await tenants.findStore(user.store_id);
    return {
      pspId: user.psp_id ?? 0,
      merchantId: user.merchant_id ?? undefined,
      areaId: store ? store.area_id : user.area_id,
      storeId: user.store_id ?? undefined,
    };
  }

  /** Whom a caller manages: users strictly below its tier, inside its reach. */
  async function manageable(
    caller: Caller,
    target: Pick<UserRow, "role" | "psp_id" | "merchant_id" | "area_id" | "store_id">,
  ) {
    const tier = tierOf(caller);
    if (tier === undefined || !isRole(target.role)) return false;
    return roles[target.role] > tier && canReach(caller, await pathOf(target));
  }

  async function requireManageable(caller: Caller, id: string, minimumTier: number = roles.STORE_MANAGER) {
    const tier = requireUser(caller);
    const user = await users.find(id).catch(() => null);
    if (!user) throw notFound("user");
    if (!(await manageable(caller, user))) throw new AppError("forbidden", "this user is outside your reach");
    if (tier > minimumTier) throw new AppError("forbidden", "your role may not change users");
    return user;
  }

  /** The users a caller may list: the roles below its tier, placed within its reach. */
  async function scopeOf(caller: Caller): Promise<UserScope> {
    const tier = requireUser(caller);
    const below = Object.entries(roles)
      .filter(([, t]) => t > tier)
      .map(([role]) => role);
    const reach = reachOf(caller);
    switch (reach.level) {
      case "platform":
        return { roles: below };
      case "psp":
        return { roles: below, psp_id: reach.pspId };
      case "merchant":
        return { roles: below, merchant_id: reach.merchantId };
      case "area":
        return { roles: below, merchant_id: reach.merchantId, store_ids: await areas.storeIds(reach.areaId) };
      case "store":
        return { roles: below, store_id: reach.storeId };
      case "nothing":
        return { roles: [] };
    }
  }

  return { pathOf, manageable, requireManageable, scopeOf };
}
