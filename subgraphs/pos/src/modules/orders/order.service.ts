import { type Caller, countsPerStore, storeReferenceLoader } from "@pos-cloud/common";
import type { OrderRepository } from "./order.repository";

export type OrderService = ReturnType<typeof orderService>;

/** Orders still on the floor: not yet completed or cancelled. */
const unfinished = ["open", "billed"];

export function orderService(orders: OrderRepository) {
  return {
    /**
     * One request's Store references (`open_orders_count` of every store of a hierarchy) in one statement. Each store
     * is checked against the caller first; its orders count only under the merchant the portal placed it in, so a
     * reference naming another merchant finds none.
     */
    storeLoader: (caller: Caller) =>
      storeReferenceLoader(caller, async (stores) => {
        const countOf = countsPerStore(
          await orders.countByStores(
            stores.map((store) => store.id),
            unfinished,
          ),
        );
        return stores.map((store) => ({ id: store.id, open_orders_count: countOf(store) }));
      }),
  };
}
