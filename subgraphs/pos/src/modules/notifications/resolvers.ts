import type { Resolvers } from "../../resolvers.generated";

export const notificationResolvers: Resolvers = {
  Query: {
    posNotifications: (_, args, { notifications, caller }) => notifications.list(caller, args),
    posAlerts: (_, { store_id }) => ({ store_id }),
    posUndeliverableMessages: (_, args, { notifications, caller }) => notifications.listUndeliverable(caller, args),
  },
  PosAlerts: {
    card_settlement_differences: ({ store_id }: { store_id?: number | null }, _, { settlements, caller }) =>
      settlements.cardDifferenceCount(caller, store_id),
    undeliverable_messages: (_, __, { notifications, caller }) => notifications.undeliverableCount(caller),
  },
};
