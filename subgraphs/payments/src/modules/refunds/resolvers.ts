import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";

export const refundResolvers: Resolvers<PaymentsContext> = {
  Query: {
    paymentIntentRefunds: (_, { id }, { refunds, caller }) => refunds.listForIntent(caller, id),
  },
  Mutation: {
    refundPaymentIntent: (_, { id, input, idempotency }, { refunds, caller }) =>
      refunds.refund(caller, id, input, idempotency),
  },
};
