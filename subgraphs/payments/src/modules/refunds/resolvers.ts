import { idempotencyRequest } from "@pos-cloud/common";
import type { Resolvers } from "../../resolvers.generated";

export const refundResolvers: Resolvers = {
  Query: {
    paymentIntentRefunds: (_, { id }, { refunds, caller }) => refunds.listForIntent(caller, id),
  },
  Mutation: {
    refundPaymentIntent: (_, { id, input, idempotency_key }, { refunds, caller }) =>
      refunds.refund(caller, id, input, idempotencyRequest(idempotency_key, "refundPaymentIntent", { id, input })),
  },
};
