import { parseEntityId } from "@pos-cloud/common";
import type { OrderRepository } from "./order.repository";

export type OrderService = ReturnType<typeof orderService>;

/** Orders still on the floor: not yet completed or cancelled. */
const unfinished = ["open", "billed"];

export function orderService(orders: OrderRepository) {
  return {
    open_orders_count: (storeId: string | number) =>
      orders.countByStore(parseEntityId(storeId, "store_id"), unfinished),
  };
}
