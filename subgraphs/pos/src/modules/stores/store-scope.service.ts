import { type Caller, reachOf } from "@pos-cloud/common";
import type { ListScope, StoreScope } from "../../list-scope";
import { PosReachedStoresDocument } from "./operations/portal.generated";
import { askPortal, type PortalCall } from "./portal.client";

/** The ids of every store the portal lists for the caller, a page of 100 at a time. */
async function reachedStoreIds(portal: PortalCall, caller: Caller): Promise<number[]> {
  const ids: number[] = [];
  for (;;) {
    const { stores } = await askPortal(portal, PosReachedStoresDocument, { limit: 100, offset: ids.length }, caller);
    ids.push(...stores.nodes.map((store) => store.id));
    if (stores.nodes.length === 0 || ids.length >= stores.total_count) return ids;
  }
}

/** What figures over many stores cover, beside what a list shows (`listScope`). */
export function storeScopes(
  portal: PortalCall,
  listScope: (caller: Caller, storeId: number | undefined) => Promise<ListScope>,
) {
  return {
    /**
     * A named store the caller reaches, else everything its reach covers: a list's scope, or for a PSP or an area
     * (which POS rows do not name) the stores the portal lists for the caller.
     */
    async storeScope(caller: Caller, storeId: number | undefined): Promise<StoreScope> {
      const reach = reachOf(caller);
      if (storeId === undefined && (reach.level === "psp" || reach.level === "area"))
        return { store_ids: await reachedStoreIds(portal, caller) };
      return listScope(caller, storeId);
    },
  };
}
