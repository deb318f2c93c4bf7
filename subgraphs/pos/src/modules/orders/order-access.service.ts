import { type Caller, requireDevice } from "@pos-cloud/common";
import { findReachable, type StoreAccess } from "../stores";
import type { OrderRepository, OrderRow } from "./order.repository";

/** The device token scope that lets a terminal take and change orders. */
export const ORDER_SCOPE = "order:create";

/** An order of a store the caller reaches; any other id is not found. */
export async function readableOrder(
  orders: OrderRepository,
  access: StoreAccess,
  caller: Caller,
  id: string,
): Promise<OrderRow> {
  return findReachable(access, caller, "order", id, orders.find);
}

/** An order the caller may change: a device needs the order scope on its token. */
export async function writableOrder(orders: OrderRepository, access: StoreAccess, caller: Caller, id: string) {
  if (caller.type === "device") requireDevice(caller, { scope: ORDER_SCOPE });
  return readableOrder(orders, access, caller, id);
}
