import { parseEntityId } from "@pos-cloud/common";
import type { Resolvers } from "../../resolvers.generated";

export const userResolvers: Resolvers = {
  Query: {
    users: (_, { store_id, role, ...page }, { users, caller }) =>
      users.list(caller, { store_id: store_id ?? undefined, role: role ?? undefined }, page),
    user: (_, { id }, { users, caller }) => users.get(caller, id),
    storeStaff: (_, { store_id }, { users, caller }) => users.staffOf(caller, parseEntityId(store_id, "store_id")),
    storeMember: (_, { store_id, login_id }, { users, caller }) =>
      users.storeMember(caller, parseEntityId(store_id, "store_id"), login_id),
  },
  Mutation: {
    createUser: (_, { input }, { users, caller }) => users.create(caller, input),
    updateUser: (_, { id, input }, { users, caller }) => users.update(caller, id, input),
    deleteUser: (_, { id }, { users, caller }) => users.deactivate(caller, id),
    unlockUser: (_, { id }, { users, caller }) => users.unlock(caller, id),
    lockUser: (_, { id }, { users, caller }) => users.lock(caller, id),
    resetUserMfa: (_, { id }, { users, caller }) => users.resetMfa(caller, id),
  },
  User: {
    __resolveReference: ({ id }, { users, caller }) => users.get(caller, id),
  },
  Store: {
    staff: ({ id }: { id: number }, _, { loaders }) => loaders.staff.load(id),
  },
};
