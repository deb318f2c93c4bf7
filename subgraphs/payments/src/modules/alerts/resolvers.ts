import type { Resolvers } from "../../resolvers.generated";

// Each count is asked of the module that owns its rows, under that module's rule of who sees it.
export const alertResolvers: Resolvers = {
  Query: {
    paymentsAlerts: (_, { store_id }) => ({ store_id }),
  },
  PaymentsAlerts: {
    dead_letters: (_, __, { apiKeyWebhooks, caller }) => apiKeyWebhooks.deadLetterCount(caller),
    expiring_api_keys: (_, __, { partnerAdmin, caller }) => partnerAdmin.expiringCount(caller),
    qr_differences: ({ store_id }: { store_id?: number | null }, _, { reconciliation, caller }) =>
      reconciliation.differenceCount(caller, store_id),
  },
};
