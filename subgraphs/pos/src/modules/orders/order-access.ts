import { type Caller, isUuid, notFound, requireDevice } from "@pos-cloud/common";
import type { StoreAccess } from "../stores/store-access.service";
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
  const order = isUuid(id) ? await orders.find(id) : null;
  if (!order) throw notFound("order");
  await access.requireRow(caller, order, "order");
  return order;
}

/** An order the caller may change: a device needs the order scope on its token. */
export async function writableOrder(orders: OrderRepository, access: StoreAccess, caller: Caller, id: string) {
  if (caller.type === "device") requireDevice(caller, { scope: ORDER_SCOPE });
  return readableOrder(orders, access, caller, id);
}
