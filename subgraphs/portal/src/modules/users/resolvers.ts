import { parseEntityId, type Resolvers } from "@pos-cloud/common";
import type { PortalContext } from "../../context";
import type { UserInput } from "./user-input";

export const userResolvers: Resolvers<PortalContext> = {
  Query: {
    users: (_, { store_id, role, ...page }, { users, caller }) =>
      users.list(caller, { store_id: store_id ?? undefined, role: role ?? undefined }, page),
    user: (_, { id }: { id: string }, { users, caller }) => users.get(caller, id),
    storeStaff: (_, { store_id }: { store_id: number }, { users, caller }) =>
      users.staffOf(caller, parseEntityId(store_id, "store_id")),
    storeMember: (_, { store_id, login_id }: { store_id: number; login_id: string }, { users, caller }) =>
      users.storeMember(caller, parseEntityId(store_id, "store_id"), login_id),
  },
  Mutation: {
    createUser: (_, { input }: { input: UserInput }, { users, caller }) => users.create(caller, input),
    updateUser: (_, { id, input }: { id: string; input: UserInput }, { users, caller }) =>
      users.update(caller, id, input),
    deleteUser: (_, { id }: { id: string }, { users, caller }) => users.deactivate(caller, id),
    unlockUser: (_, { id }: { id: string }, { users, caller }) => users.unlock(caller, id),
  },
  User: {
    __resolveReference: ({ id }: { id: string }, { users, caller }: PortalContext) => users.get(caller, id),
  },
  Store: {
    staff: ({ id }: { id: number }, _, { loaders }) => loaders.staff.load(id),
  },
};
