import { askedFields } from "@pos-cloud/common";
import type { Resolvers } from "../../resolvers.generated";

export const deviceResolvers: Resolvers = {
  Query: {
    terminals: (_, { store_id, status, ...page }, { devices, caller }) =>
      devices.list(caller, { store_id: store_id ?? undefined, status: status ?? undefined }, page),
    terminal: (_, { id }, { devices, caller }) => devices.get(caller, id),
    storeDevices: (_, { store_id, ...page }, { devices, caller }) => devices.listOfStore(caller, store_id, page),
  },
  Mutation: {
    registerTerminal: (_, { input }, { devices, caller }) => devices.register(caller, input),
    updateTerminal: (_, { id, input }, { devices, caller }) => devices.update(caller, id, input),
    suspendTerminal: (_, { id }, { devices, caller }) => devices.suspend(caller, id),
    resumeTerminal: (_, { id }, { devices, caller }) => devices.resume(caller, id),
    transferTerminal: (_, { id, input }, { devices, caller }) => devices.transfer(caller, id, input),
    decommissionTerminal: (_, { id }, { devices, caller }) => devices.decommission(caller, id),
  },
  Device: {
    __resolveReference: ({ id }, { references }) => references.device.load(id),
    store: ({ store_id }: { store_id: number | null }, _, { loaders }) =>
      store_id === null ? null : loaders.tenants.store.load(store_id),
  },
  Store: {
    devices: ({ id }: { id: number }, _, { loaders }, info) => loaders.devices(askedFields(info)).load(id),
  },
};
