import type { ReachableStore } from "@pos-cloud/common";
import type { Resolvers } from "../../resolvers.generated";

export const paymentResolvers: Resolvers = {
  Query: {
    posPayments: (_, args, { payments, caller }) => payments.list(caller, args),
    posPayment: (_, { id }, { payments, caller }) => payments.get(caller, id),
  },
  Mutation: {
    createPosPayment: (_, { input, idempotency_key }, { payments, caller }) =>
      payments.create(caller, input, idempotency_key),
    recordCardResult: (_, { id, input }, { payments, caller }) => payments.recordCardResult(caller, id, input),
  },
  PosPayment: {
    __resolveReference: ({ id }, { payments, caller }) => payments.get(caller, id),
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
  },
  Store: {
    pos_payment: (store: ReachableStore, { id }, { payments }) => payments.inStore(store, id),
  },
};
