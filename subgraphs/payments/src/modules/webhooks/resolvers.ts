import type { Resolvers } from "../../resolvers.generated";

export const webhookResolvers: Resolvers = {
  Query: {
    apiKeyWebhook: (_, { client_id }, { apiKeyWebhooks, caller }) => apiKeyWebhooks.webhook(caller, client_id),
    partnerWebhookDeadLetters: (_, { client_id }, { apiKeyWebhooks, caller }) =>
      apiKeyWebhooks.deadLetters(caller, client_id ?? null),
    partnerWebhookDeliveries: (_, { client_id, ...filter }, { apiKeyWebhooks, caller }) =>
      apiKeyWebhooks.deliveries(caller, client_id, filter),
    webhookDeliveries: (_, { client_id, ...args }, { apiKeyWebhooks, caller }) =>
      apiKeyWebhooks.deliveriesPage(caller, client_id, args),
    partnerEvents: (_, { client_id, ...args }, { apiKeyWebhooks, caller }) =>
      apiKeyWebhooks.events(caller, client_id, args),
  },
  Mutation: {
    setApiKeyWebhook: (_, { input }, { apiKeyWebhooks, caller }) => apiKeyWebhooks.setWebhook(caller, input),
    deleteApiKeyWebhook: (_, { client_id }, { apiKeyWebhooks, caller }) =>
      apiKeyWebhooks.deleteWebhook(caller, client_id),
    rotateApiKeyWebhookSecret: (_, { client_id }, { apiKeyWebhooks, caller }) =>
      apiKeyWebhooks.rotateSecret(caller, client_id),
    replayPartnerWebhook: (_, { id }, { apiKeyWebhooks, caller }) => apiKeyWebhooks.replay(caller, id),
    redeliverPartnerWebhook: (_, { client_id, id }, { apiKeyWebhooks, caller }) =>
      apiKeyWebhooks.redeliver(caller, client_id, id),
    redeliverPartnerWebhooks: (_, { input }, { apiKeyWebhooks, caller }) =>
      apiKeyWebhooks.redeliverDeadSince(caller, input),
  },
};
