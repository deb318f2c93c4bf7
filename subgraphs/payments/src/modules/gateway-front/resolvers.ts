import type { Resolvers } from "../../resolvers.generated";

export const gatewayFrontResolvers: Resolvers = {
  Query: {
    gatewayStore: (_, { client_partner_id, merchant_store_id }, { gatewayFront, caller }) =>
      gatewayFront.storeFor(caller, client_partner_id, merchant_store_id),
  },
  Mutation: {
    claimSignature: (_, { signature, ttl_seconds, idempotency_key }, { gatewayFront, caller }) =>
      gatewayFront.claimSignature(caller, signature, ttl_seconds, idempotency_key ?? null),
  },
};
