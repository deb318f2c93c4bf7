import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";

export const confirmResolvers: Resolvers<PaymentsContext> = {
  Mutation: {
    confirmPaymentIntent: (_, { id, ...input }, { confirmations }) => confirmations.confirm(id, input),
  },
};
