import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";

export const gatewayFrontResolvers: Resolvers<PaymentsContext> = {
  Query: {
    gatewayStore: (_, { client_partner_id, merchant_store_id }, { gatewayFront, caller }) =>
      gatewayFront.storeFor(caller, client_partner_id, merchant_store_id),
  },
  Mutation: {
    claimSignature: (_, { signature, ttl_seconds }, { gatewayFront, caller }) =>
      gatewayFront.claimSignature(caller, signature, ttl_seconds),
  },
};
