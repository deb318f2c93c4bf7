import { parseEntityId, type Resolvers } from "@pos-cloud/common";
import type { PortalContext } from "../../context";

export const areaResolvers: Resolvers<PortalContext> = {
  Query: {
    areas: (_, { merchant_id }: { merchant_id?: number | null }, { areas, caller }) =>
      areas.list(caller, merchant_id ?? undefined),
  },
  Mutation: {
    createArea: (_, input: { merchant_id: number; name: string }, { areas, caller }) => areas.create(caller, input),
    assignStoreToArea: (_, args: { store_id: number; area_id?: string | null }, { areas, caller }) =>
      areas.assignStore(caller, parseEntityId(args.store_id, "store_id"), args.area_id ?? null),
  },
  Area: {
    store_ids: ({ id }: { id: string }, _, { areas }) => areas.storeIds(id),
    stores: ({ id }: { id: string }, _, { loaders }) => loaders.tenants.storesOfArea.load(id),
  },
  Merchant: {
    areas: (merchant: { id: number; psp_id: number }, _, { loaders }) => loaders.areas.load(merchant),
  },
};
