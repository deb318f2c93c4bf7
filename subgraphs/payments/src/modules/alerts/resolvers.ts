import type { Resolvers } from "../../resolvers.generated";

// Each count is asked of the module that owns its rows, under that module's rule of who sees it.
export const alertResolvers: Resolvers = {
  Query: {
    paymentsAlerts: () => ({}),
  },
  PaymentsAlerts: {
    dead_letters: (_, __, { apiKeyWebhooks, caller }) => apiKeyWebhooks.deadLetterCount(caller),
    expiring_api_keys: (_, __, { partnerAdmin, caller }) => partnerAdmin.expiringCount(caller),
  },
};
