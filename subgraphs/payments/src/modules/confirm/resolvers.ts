import type { Resolvers } from "../../resolvers.generated";

export const confirmResolvers: Resolvers = {
  Mutation: {
    confirmPaymentIntent: (_, { id, ...input }, { confirmations }) => confirmations.confirm(id, input),
  },
};
