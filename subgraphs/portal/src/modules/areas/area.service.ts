import {
  type Caller,
  covers,
  invalidField,
  notFound,
  reachOf,
  requireReach,
  requireTier,
  requireUser,
  roles,
} from "@pos-cloud/common";
import DataLoader from "dataloader";
import { merchantPath, present, type TenantService } from "../tenants";
import type { AreaRepository } from "./area.repository";

export type AreaService = ReturnType<typeof areaService>;

/**
 * Areas are kept by merchant admins and above: an area belongs to one merchant and holds some of its stores; its
 * area manager (L3) reaches exactly those stores.
 */
export function areaService(areas: AreaRepository, tenants: TenantService) {
  /** The merchant as `canReach` sees it, for callers that manage areas (L0 to L2). */
  async function managedMerchant(caller: Caller, merchantId: number) {
    requireTier(caller, roles.MERCHANT_ADMIN);
    const merchant = await tenants.findMerchant(merchantId);
    if (!merchant) throw invalidField("merchant_id", "exists", "merchant not found");
    requireReach(caller, { pspId: merchant.psp_id, merchantId: merchant.id });
    return merchant;
  }

  return {
    async list(caller: Caller, merchantId?: number) {
      requireUser(caller);
      const reach = reachOf(caller);
      const ids = merchantId === undefined ? undefined : [merchantId];
      if (reach.level === "platform") return areas.list({ merchant_ids: ids });
      if (reach.level === "area") return areas.list({ id: reach.areaId });
      if (reach.level !== "psp" && reach.level !== "merchant") return [];
      const reachable = reach.level === "psp" ? await tenants.merchantIdsOfPsp(reach.pspId) : [reach.merchantId];
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
      return present(await areas.assignStore(store.id, areaId));
    },

    /** Without a caller check, for users' rules, which check the caller against the area a user is placed in. */
    find: (areaId: string) => areas.find(areaId),
    storeIds: (areaId: string) => areas.storeIds(areaId),
    /**
     * Per-request batching of `merchant { areas }`, one statement for every merchant: the areas `list` shows the
     * caller (L0 to L2 those of the merchants they reach, L3 its own area), none for store tiers and devices.
     */
    loader: (caller: Caller) =>
      new DataLoader<{ id: number; psp_id: number }, Awaited<ReturnType<AreaRepository["list"]>>, number>(
        async (merchants) => {
          const reach = reachOf(caller);
          const own = reach.level === "area" ? reach : undefined;
          const shown = merchants.filter((merchant) =>
            own ? merchant.id === own.merchantId : covers(reach, merchantPath(merchant)),
          );
          const rows =
            shown.length === 0 ? [] : await areas.list({ merchant_ids: shown.map((m) => m.id), id: own?.areaId });
          return merchants.map((merchant) => rows.filter((area) => area.merchant_id === merchant.id));
        },
        { cacheKeyFn: (merchant) => merchant.id },
      ),

    /** Without a caller check, for the demo tenant and tests, like `tenants.createStore`. */
    createUnchecked: (merchant_id: number, name: string) => areas.create({ merchant_id, name }),
    assignStoreUnchecked: (store_id: number, area_id: string | null) => areas.assignStore(store_id, area_id),
  };
}
