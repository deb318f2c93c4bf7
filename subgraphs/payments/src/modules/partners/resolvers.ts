import type { Resolvers } from "../../resolvers.generated";

export const partnerResolvers: Resolvers = {
  Query: {
    partnerCredentials: (_, { client_id }, { partners, caller }) => partners.credentialsFor(caller, client_id),
    clientPartners: (_, page, { partnerAdmin, caller }) => partnerAdmin.list(caller, page),
    clientPartner: (_, { id }, { partnerAdmin, caller }) => partnerAdmin.show(caller, id),
    clientPartnerApiKeys: (_, { client_partner_id }, { partnerAdmin, caller }) =>
      partnerAdmin.keys(caller, client_partner_id),
    expiringApiKeys: (_, { days }, { partnerAdmin, caller }) => partnerAdmin.expiring(caller, days),
  },
  Mutation: {
    syncMerchants: (_, { input }, { merchantSync, caller }) => merchantSync.syncMerchants(caller, input),
    createClientPartner: (_, { input }, { partnerAdmin, caller }) => partnerAdmin.create(caller, input),
    deactivateClientPartner: (_, { id }, { partnerAdmin, caller }) => partnerAdmin.deactivate(caller, id),
    issueApiKey: (_, { client_partner_id }, { partnerAdmin, caller }) => partnerAdmin.issue(caller, client_partner_id),
    revokeApiKey: (_, { client_partner_id, id }, { partnerAdmin, caller }) =>
      partnerAdmin.revoke(caller, client_partner_id, id),
    rotateApiKey: (_, { client_id }, { partnerAdmin, caller }) => partnerAdmin.rotate(caller, client_id),
    touchApiKey: (_, { id }, { partners, caller }) => partners.touchApiKey(caller, id),
  },
};
