import type { Resolvers } from "../../resolvers.generated";

export const ledgerResolvers: Resolvers = {
  Query: {
    paymentIntentTransactions: (_, { id, payment_token }, { transactions }) =>
      transactions.listForIntent(id, payment_token),
    transaction: (_, { id }, { transactions, caller }) => transactions.find(caller, id),
  },
  PaymentIntent: {
    transactions: ({ id }: { id: string }, _, { transactions }) => transactions.ofReadIntent(id),
  },
};
