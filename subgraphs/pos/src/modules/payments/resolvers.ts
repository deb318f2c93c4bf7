import type { Resolvers } from "@pos-cloud/common";
import type { PosContext } from "../../context";

export const paymentResolvers: Resolvers<PosContext> = {
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
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
  },
};
