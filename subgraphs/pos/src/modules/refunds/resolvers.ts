import type { Resolvers } from "@pos-cloud/common";
import type { PosContext } from "../../context";

export const refundResolvers: Resolvers<PosContext> = {
  Query: {
    posRefundStatus: (_, { payment_id }, { refunds, caller }) => refunds.status(caller, payment_id),
  },
  Mutation: {
    refundPosPayment: (_, { payment_id, input, idempotency_key }, { refunds, caller }) =>
      refunds.refund(caller, payment_id, input, idempotency_key),
  },
};
