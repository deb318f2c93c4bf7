import type { Resolvers } from "../../resolvers.generated";

export const partnerResolvers: Resolvers = {
  Query: {
    partnerCredentials: (_, { client_id }, { partners, caller }) => partners.credentialsFor(caller, client_id),
  },
  Mutation: {
    syncMerchants: (_, { input }, { merchantSync, caller }) => merchantSync.syncMerchants(caller, input),
  },
};
