import { parseEntityId, type Resolvers } from "@pos-cloud/common";
import { JSONObjectResolver } from "graphql-scalars";
import type { PortalContext } from "../../context";

type Parent = { id: number; psp_id: number; merchant_id: number };
type StoreParent = Parent & { merchant: { psp_id: number } };
type Page = { limit?: number; offset?: number };

export const tenantResolvers: Resolvers<PortalContext> = {
  JSONObject: JSONObjectResolver,
  Query: {
    psps: (_, page: Page, { tenants, caller }) => tenants.listPsps(caller, page),
    psp: (_, { id }, { tenants, caller }) => tenants.getPsp(caller, id),
    merchants: (_, { psp_id, ...page }, { tenants, caller }) =>
      tenants.listMerchants(caller, { psp_id: psp_id ?? undefined }, page),
    merchant: (_, { id }, { tenants, caller }) => tenants.getMerchant(caller, id),
    stores: (_, { merchant_id, ...page }, { tenants, caller }) =>
      tenants.listStores(caller, { merchant_id: merchant_id ?? undefined }, page),
    store: (_, { id }, { tenants, caller }) => tenants.getStore(caller, id),
  },
  Mutation: {
    createPsp: (_, { input }, { tenants, caller }) => tenants.createPsp(caller, input),
    createMerchant: (_, { input }, { tenants, caller }) => tenants.createMerchant(caller, input),
    updateMerchant: (_, { id, input }, { tenants, caller }) => tenants.updateMerchant(caller, id, input),
    deactivateMerchant: (_, { id }, { tenants, caller }) => tenants.deactivateMerchant(caller, id),
    createStore: (_, { input }, { tenants, caller }) => tenants.createStore(caller, input),
    updateStore: (_, { id, input }, { tenants, caller }) => tenants.updateStore(caller, id, input),
    deactivateStore: (_, { id }, { tenants, caller }) => tenants.deactivateStore(caller, id),
  },
  Psp: {
    __resolveReference: ({ id }: Parent, { references }: PortalContext) => references.psp.load(parseEntityId(id)),
    merchants: ({ id }: Parent, _, { loaders }) => loaders.tenants.merchantsOfPsp.load(id),
  },
  Merchant: {
    __resolveReference: ({ id }: Parent, { references }: PortalContext) => references.merchant.load(parseEntityId(id)),
    psp: ({ psp_id }: Parent, _, { loaders }) => loaders.tenants.psp.load(psp_id),
    stores: ({ id }: Parent, _, { loaders }) => loaders.tenants.storesOfMerchant.load(id),
  },
  Store: {
    __resolveReference: ({ id }: Parent, { references }: PortalContext) => references.store.load(parseEntityId(id)),
    merchant: ({ merchant_id }: Parent, _, { loaders }) => loaders.tenants.merchant.load(merchant_id),
    psp_id: ({ merchant }: StoreParent) => merchant.psp_id,
  },
};
