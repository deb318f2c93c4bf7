import type { Resolvers } from "../../resolvers.generated";

export const gatewayFrontResolvers: Resolvers = {
  Query: {
    gatewayStore: (_, { client_partner_id, merchant_store_id }, { gatewayFront, caller }) =>
      gatewayFront.storeFor(caller, client_partner_id, merchant_store_id),
    gatewayIntentStore: (_, { client_partner_id, payment_intent_id }, { gatewayFront, caller }) =>
      gatewayFront.intentStoreFor(caller, client_partner_id, payment_intent_id),
    gatewayTransactionStore: (_, { client_partner_id, transaction_id }, { gatewayFront, caller }) =>
      gatewayFront.transactionStoreFor(caller, client_partner_id, transaction_id),
  },
  Mutation: {
    claimSignature: (_, { signature, ttl_seconds, idempotency_key }, { gatewayFront, caller }) =>
      gatewayFront.claimSignature(caller, signature, ttl_seconds, idempotency_key ?? null),
  },
};
