import { type CountedStore, type ReachableStore, storeReferences } from "@pos-cloud/common";
import type { PosContext } from "../../context";
import type { Resolvers } from "../../resolvers.generated";

export const orderResolvers: Resolvers = {
  Query: {
    orders: (_, args, { orders, caller }) => orders.list(caller, args),
    order: (_, { id }, { orders, caller }) => orders.get(caller, id),
  },
  Mutation: {
    createOrder: (_, { input, idempotency_key }, { orders, caller }) => orders.create(caller, input, idempotency_key),
    updateOrder: (_, { id, input }, { orders, caller }) => orders.update(caller, id, input),
    cancelOrder: (_, { id }, { orders, caller }) => orders.cancel(caller, id),
  },
  Order: {
    __resolveReference: ({ id }, { orders, caller }) => orders.get(caller, id),
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
  },
  Store: {
    open_orders_count: (store: CountedStore) => store.count!,
    order: (store: ReachableStore, { id }, { orders }) => orders.inStore(store, id),
  },
};

/** The stores the gateway asks about, with their open orders counted together when the query asks. */
export const storeReferenceBatch = storeReferences<PosContext>({
  field: "open_orders_count",
  of: ({ orders }, stores) => orders.openOrderCounts(stores),
});
