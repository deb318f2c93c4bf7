import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";

export const partnerResolvers: Resolvers<PaymentsContext> = {
  Query: {
    partnerCredentials: (_, { client_id }, { partners, caller }) => partners.credentialsFor(caller, client_id),
  },
  Mutation: {
    syncMerchants: (_, { input }, { merchantSync, caller }) => merchantSync.syncMerchants(caller, input),
  },
};
