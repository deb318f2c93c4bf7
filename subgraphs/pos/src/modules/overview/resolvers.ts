import type { Resolvers } from "../../resolvers.generated";

export const overviewResolvers: Resolvers = {
  Query: {
    salesOverview: (_, args, { overview, caller }) => overview.salesOverview(caller, args),
  },
  StoreFailures: {
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
  },
};
