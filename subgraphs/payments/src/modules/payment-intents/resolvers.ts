import { type CountedStore, idempotencyRequest, type ReachableStore, storeReferences } from "@pos-cloud/common";
import { JSONObjectResolver } from "graphql-scalars";
import type { PaymentsContext } from "../../context";
import type { Resolvers } from "../../resolvers.generated";

export const paymentIntentResolvers: Resolvers = {
  JSONObject: JSONObjectResolver,
  Query: {
    paymentIntents: (_, filter, { paymentIntents, caller }) => paymentIntents.list(caller, filter),
    paymentIntentByToken: (_, { id, payment_token }, { paymentIntents }) => paymentIntents.retrieve(id, payment_token),
    subscribedPaymentIntent: (_, { id }, { paymentIntents, caller }) => paymentIntents.findForEdge(caller, id),
  },
  Mutation: {
    createPaymentIntent: (_, { input, idempotency_key }, { paymentIntents, caller }) =>
      paymentIntents.create(caller, input, idempotencyRequest(idempotency_key, "createPaymentIntent", { input })),
    cancelPaymentIntent: (_, { id, payment_token }, { paymentIntents }) => paymentIntents.cancel(id, payment_token),
    capturePaymentIntent: (
      _,
      { id, input: { amount, amount_to_capture }, idempotency_key },
      { paymentIntents, caller },
    ) =>
      // The idempotency fingerprint keeps its shape of before the typed input, so stored keys still match.
      paymentIntents.capture(
        caller,
        id,
        { amount, amount_to_capture },
        idempotencyRequest(idempotency_key, "capturePaymentIntent", {
          id,
          amount,
          ...(amount_to_capture == null ? {} : { amount_to_capture }),
        }),
      ),
  },
  PaymentIntent: {
    __resolveReference: ({ id }: { id: string }, { paymentIntents, caller }: PaymentsContext) =>
      paymentIntents.findForCaller(caller, id),
    // A reference by key: the portal resolves the store (batched) and checks the caller against it.
    store: ({ store_id }: { store_id: number }) => ({ __typename: "Store", id: store_id }),
  },
  Store: {
    payment_intents_count: (store: CountedStore) => store.count!,
    payment_intent: (store: ReachableStore, { id }, { paymentIntents }) => paymentIntents.findInStore(store, id),
  },
};

/** The stores the gateway asks about, with their intents counted together when the query asks. */
export const storeReferenceBatch = storeReferences<PaymentsContext>({
  field: "payment_intents_count",
  of: ({ paymentIntents }, stores) => paymentIntents.intentCounts(stores),
});
