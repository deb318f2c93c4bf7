import type { Resolvers } from "../../resolvers.generated";

export const messageResolvers: Resolvers = {
  Query: {
    portalAlerts: () => ({}),
    portalUndeliverableMessages: (_, args, { outgoingMessages, caller }) =>
      outgoingMessages.listUndeliverable(caller, args),
  },
  PortalAlerts: {
    undeliverable_messages: (_, __, { outgoingMessages, caller }) => outgoingMessages.undeliverableCount(caller),
  },
};
