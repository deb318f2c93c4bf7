import type { Resolvers } from "../../resolvers.generated";

export const notificationResolvers: Resolvers = {
  Query: {
    posNotifications: (_, args, { notifications, caller }) => notifications.list(caller, args),
  },
};
