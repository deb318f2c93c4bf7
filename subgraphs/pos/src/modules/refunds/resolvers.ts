import type { Resolvers } from "../../resolvers.generated";

export const refundResolvers: Resolvers = {
  Query: {
    posRefundStatus: (_, { payment_id }, { refunds, caller }) => refunds.status(caller, payment_id),
  },
  Mutation: {
    refundPosPayment: (_, { payment_id, input, idempotency_key }, { refunds, caller }) =>
      refunds.refund(caller, payment_id, input, idempotency_key),
  },
};
