import type { ReachableStore } from "@pos-cloud/common";
import type { Resolvers } from "../../resolvers.generated";

export const billResolvers: Resolvers = {
  Query: {
    bills: (_, args, { bills, caller }) => bills.list(caller, args),
    bill: (_, { id }, { bills, caller }) => bills.get(caller, id),
  },
  Mutation: {
    createBill: (_, { input, idempotency_key }, { bills, caller }) => bills.create(caller, input, idempotency_key),
    splitBill: (_, { id, input }, { bills, caller }) => bills.split(caller, id, input),
    combineBills: (_, { input }, { bills, caller }) => bills.combine(caller, input),
    cancelBill: (_, { id }, { bills, caller }) => bills.cancel(caller, id),
  },
  Bill: {
    __resolveReference: ({ id }, { bills, caller }) => bills.get(caller, id),
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
  },
  Store: {
    bill: (store: ReachableStore, { id }, { bills }) => bills.inStore(store, id),
  },
};
