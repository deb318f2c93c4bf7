import type { Resolvers, StoreReference } from "@pos-cloud/common";
import type { PosContext } from "../../context";

export const orderResolvers: Resolvers<PosContext> = {
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
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
  },
  Store: {
    __resolveReference: (reference: StoreReference, { loaders }: PosContext) => loaders.stores.load(reference),
  },
};
