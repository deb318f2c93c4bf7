import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";

export const paymentIntentResolvers: Resolvers<PaymentsContext> = {
  Query: {
    paymentIntents: (_, filter, { paymentIntents, caller }) => paymentIntents.list(caller, filter),
    paymentIntentByToken: (_, { id, payment_token }, { paymentIntents }) => paymentIntents.retrieve(id, payment_token),
  },
  Mutation: {
    createPaymentIntent: (_, { input, idempotency }, { paymentIntents, caller }) =>
      paymentIntents.create(caller, input, idempotency),
    cancelPaymentIntent: (_, { id, payment_token }, { paymentIntents }) => paymentIntents.cancel(id, payment_token),
    capturePaymentIntent: (_, { id, amount, idempotency }, { paymentIntents, caller }) =>
      paymentIntents.capture(caller, id, amount, idempotency),
  },
  PaymentIntent: {
    __resolveReference: ({ id }: { id: string }, { paymentIntents, caller }: PaymentsContext) =>
      paymentIntents.findForCaller(caller, id),
  },
  Store: {
    payment_intents_count: ({ id }: { id: number }, _, { paymentIntents }) => paymentIntents.payment_intents_count(id),
  },
};
