import { type ReachableStore, reachableStoreReference, type StoreReference } from "@pos-cloud/common";
import type { PosContext } from "../../context";
import type { Resolvers } from "../../resolvers.generated";

export const orderResolvers: Resolvers = {
  Query: {
    orders: (_, args, { orders, caller }) => orders.list(caller, args),
    order: (_, { id }, { orders, caller }) => orders.get(caller, id),
  },
  Mutation: {
    createOrder: (_, { input }, { orders, caller }) => orders.create(caller, input),
    updateOrder: (_, { id, input }, { orders, caller }) => orders.update(caller, id, input),
    cancelOrder: (_, { id }, { orders, caller }) => orders.cancel(caller, id),
  },
  Order: {
    __resolveReference: ({ id }, { orders, caller }) => orders.get(caller, id),
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
  },
  Store: {
    // Async, so that a refusal fails this reference alone, not the whole batch of `_entities`.
    __resolveReference: async (reference: StoreReference, { caller }: PosContext) =>
      reachableStoreReference(caller, reference),
    open_orders_count: (store: ReachableStore, _, { loaders }) => loaders.openOrders.load(store),
    order: (store: ReachableStore, { id }, { orders }) => orders.inStore(store, id),
  },
};
