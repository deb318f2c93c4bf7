import type { Resolvers } from "@pos-cloud/common";
import type { PortalContext } from "../../context";

export const appUpdateResolvers: Resolvers<PortalContext> = {
  Query: {
    appVersions: (_, { app_name, ...page }, { appUpdates, caller }) =>
      appUpdates.list(caller, { app_name: app_name ?? undefined }, page),
    checkAppUpdate: (_, args, { appUpdates, caller }) => appUpdates.check(caller, args),
  },
  Mutation: {
    registerAppVersion: (_, { input }, { appUpdates, caller }) => appUpdates.register(caller, input),
    updateAppVersion: (_, { id, input }, { appUpdates, caller }) => appUpdates.update(caller, id, input),
    publishAppVersion: (_, { id }, { appUpdates, caller }) => appUpdates.publish(caller, id),
    confirmAppInstall: (_, { input }, { appUpdates, caller }) => appUpdates.confirmInstall(caller, input),
  },
};
