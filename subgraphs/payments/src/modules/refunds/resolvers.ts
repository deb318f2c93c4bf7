import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";
import { idempotencyRequest } from "../idempotency/idempotency.service";

export const refundResolvers: Resolvers<PaymentsContext> = {
  Query: {
    paymentIntentRefunds: (_, { id }, { refunds, caller }) => refunds.listForIntent(caller, id),
  },
  Mutation: {
    refundPaymentIntent: (_, { id, input, idempotency_key }, { refunds, caller }) =>
      refunds.refund(caller, id, input, idempotencyRequest(idempotency_key, "refundPaymentIntent", { id, input })),
  },
};
