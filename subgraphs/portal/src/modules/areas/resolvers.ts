import { parseEntityId } from "@pos-cloud/common";
import type { Resolvers } from "../../resolvers.generated";

export const areaResolvers: Resolvers = {
  Query: {
    areas: (_, { merchant_id }, { areas, caller }) => areas.list(caller, merchant_id ?? undefined),
  },
  Mutation: {
    createArea: (_, { input }, { areas, caller }) => areas.create(caller, input),
    assignStoreToArea: (_, { input }, { areas, caller }) =>
      areas.assignStore(caller, parseEntityId(input.store_id, "store_id"), input.area_id ?? null),
  },
  Area: {
    store_ids: ({ id }: { id: string }, _, { areas }) => areas.storeIds(id),
    stores: ({ id }: { id: string }, _, { loaders }) => loaders.tenants.storesOfArea.load(id),
  },
  Merchant: {
    areas: (merchant: { id: number; psp_id: number }, _, { loaders }) => loaders.areas.load(merchant),
  },
};
