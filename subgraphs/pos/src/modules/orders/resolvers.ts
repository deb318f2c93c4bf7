import type { Resolvers, StoreReference } from "@pos-cloud/common";
import type { PosContext } from "../../context";

export const orderResolvers: Resolvers<PosContext> = {
  Store: {
    __resolveReference: (reference: StoreReference, { loaders }: PosContext) => loaders.stores.load(reference),
  },
};
