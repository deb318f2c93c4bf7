import { AppError, type Caller, canReach, invalidField, notFound, roles, tierOf } from "@pos-cloud/common";
import type { TenantRepository } from "../tenants/tenant.repository";
import type { AreaRepository } from "./area.repository";

export type AreaService = ReturnType<typeof areaService>;

/**
 * Areas are kept by merchant admins and above: an area belongs to one merchant and holds some of its stores; its
 * area manager (L3) reaches exactly those stores.
 */
export function areaService(areas: AreaRepository, tenants: TenantRepository) {
  const tierOrRefuse = (caller: Caller) => {
    const tier = tierOf(caller);
    if (tier === undefined)
      throw new AppError(caller.type === "anonymous" ? "unauthorized" : "forbidden", "log in as a user");
    return tier;
  };

  /** The merchant as `canReach` sees it, for callers that manage areas (L0 to L2). */
  async function managedMerchant(caller: Caller, merchantId: number) {
    if (tierOrRefuse(caller) > roles.MERCHANT_ADMIN) throw new AppError("forbidden", "your role may not manage areas");
    const merchant = await tenants.findMerchant(merchantId);
    if (!merchant) throw invalidField("merchant_id", "exists", "merchant not found");
    if (!canReach(caller, { pspId: merchant.psp_id, merchantId: merchant.id }))
      throw new AppError("forbidden", "this merchant is outside your tenant scope");
    return merchant;
  }

  return {
    async list(caller: Caller, merchantId?: number) {
      const tier = tierOrRefuse(caller);
      if (tier === roles.AREA_MANAGER) return areas.list({ id: caller.areaId ?? "" });
      if (tier > roles.AREA_MANAGER) return [];
      const ids = merchantId === undefined ? undefined : [merchantId];
      if (tier === 0) return areas.list({ merchant_ids: ids });
      const reachable =
        tier === roles.PSP_ADMIN ? await tenants.merchantIdsOfPsp(caller.pspId ?? -1) : [caller.merchantId ?? -1];
      return areas.list({ merchant_ids: reachable.filter((id) => ids === undefined || ids.includes(id)) });
    },

    async create(caller: Caller, input: { merchant_id: number; name: string }) {
      const merchant = await managedMerchant(caller, input.merchant_id);
      const name = input.name.trim();
      if (name.length === 0 || name.length > 100)
        throw invalidField("name", "length", "name must be 1 to 100 characters");
      return areas.create({ merchant_id: merchant.id, name });
    },

    /** Puts a store in an area of its own merchant, or (`area_id` null) in none. */
    async assignStore(caller: Caller, storeId: number, areaId: string | null) {
      const store = await tenants.findStore(storeId);
      if (!store) throw notFound("store");
      await managedMerchant(caller, store.merchant_id);
      if (areaId !== null) {
        const area = await areas.find(areaId);
        if (!area || area.merchant_id !== store.merchant_id)
          throw invalidField("area_id", "exists", "no such area at the store's merchant");
      }
      return areas.assignStore(store.id, areaId);
    },

    storeIds: (areaId: string) => areas.storeIds(areaId),

    /** Without a caller check, for the demo tenant and tests, like `tenants.createStore`. */
    createUnchecked: (merchant_id: number, name: string) => areas.create({ merchant_id, name }),
    assignStoreUnchecked: (store_id: number, area_id: string | null) => areas.assignStore(store_id, area_id),
  };
}
