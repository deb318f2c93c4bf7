import type { Resolvers } from "@pos-cloud/common";
import type { PosContext } from "../../context";

export const orderResolvers: Resolvers<PosContext> = {
  Store: {
    open_orders_count: ({ id }: { id: number }, _, { orders }) => orders.open_orders_count(id),
  },
};
