import type { Resolvers } from "../../resolvers.generated";

export const appUpdateResolvers: Resolvers = {
  Query: {
    appVersions: (_, { app_name, limit, offset }, { appUpdates, caller }) =>
      appUpdates.list(
        caller,
        { app_name: app_name ?? undefined },
        { limit: limit ?? undefined, offset: offset ?? undefined },
      ),
    checkAppUpdate: (_, args, { appUpdates, caller }) => appUpdates.check(caller, args),
  },
  Mutation: {
    registerAppVersion: (_, { input }, { appUpdates, caller }) => appUpdates.register(caller, input),
    updateAppVersion: (_, { id, input }, { appUpdates, caller }) => appUpdates.update(caller, id, input),
    publishAppVersion: (_, { id }, { appUpdates, caller }) => appUpdates.publish(caller, id),
    confirmAppInstall: (_, { input }, { appUpdates, caller }) => appUpdates.confirmInstall(caller, input),
  },
  AppVersion: {
    devices: async (version, _, { appUpdates, devices, caller }) =>
      devices.visible(caller, await appUpdates.devicesOn(caller, version)),
  },
  Device: {
    app_versions: ({ id }: { id: string }, _, { loaders }) => loaders.installed.load(id),
  },
};
