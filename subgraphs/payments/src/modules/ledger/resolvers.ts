import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";

export const ledgerResolvers: Resolvers<PaymentsContext> = {
  Query: {
    paymentIntentTransactions: (_, { id, payment_token }, { transactions }) =>
      transactions.listForIntent(id, payment_token),
    transaction: (_, { id }, { transactions, caller }) => transactions.find(caller, id),
  },
};
