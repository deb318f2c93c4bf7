import type { Resolvers } from "../../resolvers.generated";

export const messageResolvers: Resolvers = {
  Query: {
    portalAlerts: () => ({}),
  },
  PortalAlerts: {
    undeliverable_messages: (_, __, { outgoingMessages, caller }) => outgoingMessages.undeliverableCount(caller),
  },
};
