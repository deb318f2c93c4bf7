import type { Resolvers } from "../../resolvers.generated";

export const providerEventResolvers: Resolvers = {
  Query: {
    webhookDeadLetters: (_, __, { webhooks, caller }) => webhooks.deadLetters(caller),
  },
  Mutation: {
    receiveProviderWebhook: (_, { provider, raw_body, signatures }, { webhooks }) =>
      webhooks.receive(provider, raw_body, signatures),
    replayWebhookDeadLetter: (_, { id }, { webhooks, caller }) => webhooks.replay(caller, id),
  },
};
