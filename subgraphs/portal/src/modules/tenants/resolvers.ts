import { askedFields, parseEntityId, tipCeilingOf } from "@pos-cloud/common";
import { JSONObjectResolver } from "graphql-scalars";
import type { Resolvers } from "../../resolvers.generated";

type Parent = { id: number; psp_id: number; merchant_id: number };
type StoreParent = Parent & { merchant: { psp_id: number }; payment_config: unknown };

export const tenantResolvers: Resolvers = {
  JSONObject: JSONObjectResolver,
  Query: {
    psps: (_, page, { tenants, caller }) => tenants.listPsps(caller, page),
    psp: (_, { id }, { tenants, caller }) => tenants.getPsp(caller, id),
    merchants: (_, { psp_id, ...page }, { tenants, caller }) =>
      tenants.listMerchants(caller, { psp_id: psp_id ?? undefined }, page),
    merchant: (_, { id }, { tenants, caller }) => tenants.getMerchant(caller, id),
    stores: (_, { merchant_id, ...page }, { tenants, caller }) =>
      tenants.listStores(caller, { merchant_id: merchant_id ?? undefined }, page),
    store: (_, { id }, { tenants, caller }) => tenants.getStore(caller, id),
    receiptIssuer: (_, { store_id }, { tenants, caller }) =>
      tenants.receiptIssuer(caller, parseEntityId(store_id, "store_id")),
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
    __resolveReference: ({ id }, { references }) => references.psp.load(parseEntityId(id)),
    merchants: ({ id }: Parent, _, { loaders }) => loaders.tenants.merchantsOfPsp.load(id),
  },
  Merchant: {
    __resolveReference: ({ id }, { references }) => references.merchant.load(parseEntityId(id)),
    psp: ({ psp_id }: Parent, _, { loaders }) => loaders.tenants.psp.load(psp_id),
    stores: ({ id }: Parent, _, { loaders }, info) => loaders.tenants.storesOfMerchant(askedFields(info)).load(id),
  },
  Store: {
    __resolveReference: ({ id }, { references }) => references.store.load(parseEntityId(id)),
    merchant: ({ merchant_id }: Parent, _, { loaders }) => loaders.tenants.merchant.load(merchant_id),
    psp_id: ({ merchant }: StoreParent) => merchant.psp_id,
    tip_ceiling: async ({ merchant_id, payment_config }: StoreParent, _, { loaders }) => {
      const merchant = await loaders.tenants.merchant.load(merchant_id);
      if (merchant instanceof Error) throw merchant;
      return tipCeilingOf(payment_config, merchant.payment_config);
    },
  },
};
