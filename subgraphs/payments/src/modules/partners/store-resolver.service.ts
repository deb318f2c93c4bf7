import { invalidField } from "@pos-cloud/common";
import type { PartnerRepository } from "./partner.repository";

export type StoreResolver = ReturnType<typeof storeResolver>;

/** A store whose tenant was deactivated (synced with `is_active: false`) takes no new intents. */
function active<T extends { is_active: boolean }>(store: T): T {
  if (!store.is_active) throw invalidField("merchant_store_id", "active_store", "this store is inactive");
  return store;
}

/**
 * Which synced store an intent belongs to. `merchant_store_id` names one of the partner's stores by store code or,
 * failing that, by its numeric id. Without it a partner with exactly one store uses that store. A partner's stores
 * are those of its live grants (every store for the platform's sync partner): a store outside them is answered as an
 * unknown one, so a partner cannot learn which ids exist.
 */
export function storeResolver(partners: PartnerRepository) {
  const onlyStore = async (client_partner_id: number) => {
    const first = await partners.firstPartnerStores(client_partner_id, 2);
    return first.length === 1 ? (first[0] ?? null) : null;
  };

  /** The partner's stores `merchant_store_id` may mean: those with that code, else the one with that id. */
  async function named(client_partner_id: number, merchant_store_id: string) {
    const id = /^[1-9][0-9]{0,9}$/.test(merchant_store_id) ? Number(merchant_store_id) : undefined;
    const found = await partners.partnerStores(client_partner_id, { code: merchant_store_id, id });
    const byCode = found.filter((store) => store.store_code === merchant_store_id);
    return byCode.length > 0 ? byCode : found.slice(0, 1);
  }

  return {
    /**
     * The store a request is for, as `resolve` would find it but without refusing anything (an inactive store, an
     * ambiguous code: the first), for the edge's per-store and per-merchant limits; null when there is none.
     */
    async find(client_partner_id: number, merchant_store_id: string | null) {
      if (merchant_store_id === null) return onlyStore(client_partner_id);
      return (await named(client_partner_id, merchant_store_id))[0] ?? null;
    },

    async resolve(client_partner_id: number, merchant_store_id: string | null) {
      if (merchant_store_id === null) {
        const only = await onlyStore(client_partner_id);
        if (only) return active(only);
        throw invalidField("merchant_store_id", "required", "merchant_store_id is required: name one of your stores");
      }
      const stores = await named(client_partner_id, merchant_store_id);
      if (stores.length > 1) {
        throw invalidField(
          "merchant_store_id",
          "ambiguous",
          "several of your stores have this code; send the store id",
        );
      }
      const store = stores[0];
      if (store) return active(store);
      throw invalidField("merchant_store_id", "unknown_store", "none of your stores has this code or id");
    },

    /** Whether the partner may still move money at this store: a live grant (or the sync partner's reach). */
    reaches: (client_partner_id: number, store: { id: number; merchant_id: number }) =>
      partners.reachesStore(client_partner_id, store),
  };
}
