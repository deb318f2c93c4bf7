import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";

export const providerEventResolvers: Resolvers<PaymentsContext> = {
  Query: {
    webhookDeadLetters: (_, __, { webhooks, caller }) => webhooks.deadLetters(caller),
  },
  Mutation: {
    receiveProviderWebhook: (_, { provider, raw_body, signatures }, { webhooks }) =>
      webhooks.receive(provider, raw_body, signatures),
    replayWebhookDeadLetter: (_, { id }, { webhooks, caller }) => webhooks.replay(caller, id),
  },
};
