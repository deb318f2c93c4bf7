import { type Caller, idempotencyRequest, invalidField, notFound, parseInput } from "@pos-cloud/common";
import { nextDailyNumber } from "../../daily-number";
import { itemSubtotal, orderTotals } from "../../money";
import type { SaleTimes } from "../../sale-time";
import type { CustomerService } from "../customers";
import type { StoreIdempotency } from "../idempotency";
import type { StoreAccess } from "../stores";
import { type OrderUpdate, orderCreate, orderUpdate } from "./order.inputs";
import { orderMachine } from "./order.machine";
import type { OrderRepository, OrderRow } from "./order.repository";
import { ORDER_SCOPE, writableOrder } from "./order-access.service";

const priced = (items: { sequence: number; item_name: string; quantity: number; unit_price: number }[]) =>
  items.map((item) => ({ ...item, subtotal: itemSubtotal(item) }));

/** An open order with `patch` applied: new items replace the old ones and the totals follow. */
function editedOrder(order: OrderRow, patch: OrderUpdate) {
  orderMachine.transition(order.status, "edit");
  const items = patch.items ? priced(patch.items) : undefined;
  const totals = orderTotals(items ?? order.items, patch.discount_amount ?? order.discount_amount);
  const orderType = patch.order_type ?? order.order_type;
  const tableNumber = patch.table_number === undefined ? order.table_number : patch.table_number;
  if (orderType === "dine_in" && tableNumber === null)
    throw invalidField("table_number", "required", "a dine_in order needs its table_number");
  return {
    data: {
      order_type: orderType,
      table_number: tableNumber,
      customer_id: patch.customer_id === undefined ? order.customer_id : patch.customer_id,
      ...totals,
    },
    items,
  };
}

/** What a terminal or a user does to orders: takes one, changes it while open, cancels it. */
export function orderChanges(
  orders: OrderRepository,
  access: StoreAccess,
  clock: () => Date,
  saleTime: SaleTimes,
  customers: Pick<CustomerService, "requireAttachable">,
  keys: StoreIdempotency,
) {
  async function change(
    caller: Caller,
    id: string,
    decide: Parameters<OrderRepository["change"]>[1],
    check?: (order: OrderRow) => Promise<void>,
  ) {
    // Not `check?.(await writable(...))`: optional chaining skips the arguments too, and with them the caller's check.
    const order = await writableOrder(orders, access, caller, id);
    await check?.(order);
    const changed = await orders.change(id, decide);
    if (!changed) throw notFound("order");
    return changed;
  }

  return {
    /**
     * A new open order with its totals computed here; `order_number` is the store's next of the business day it
     * happened on (`occurred_at`, for an order recorded offline). An Idempotency-Key (per store, 24 hours) answers
     * the first order again (docs/decisions/pos.md, "Idempotency-Keys of orders and bills").
     */
    async create(caller: Caller, input: unknown, key?: string | null) {
      const data = parseInput(orderCreate, input);
      const at = clock();
      const happened = saleTime(data.occurred_at, at);
      const store = await access.storeFor(caller, data.store_id, ORDER_SCOPE);
      if (data.customer_id) await customers.requireAttachable(store.merchantId, data.customer_id);
      const totals = orderTotals(data.items, data.discount_amount ?? 0);
      const request = idempotencyRequest(key, "createOrder", { input: data });
      const { replayed: _, ...order } = await keys.run<OrderRow>(
        store.storeId,
        request,
        (claimed) =>
          orders.create(
            async (tx) => ({
              merchant_id: store.merchantId,
              store_id: store.storeId,
              device_id: caller.type === "device" ? caller.id : null,
              order_number: await nextDailyNumber(tx, store.storeId, "order", happened.occurred_at),
              order_type: data.order_type,
              table_number: data.table_number ?? null,
              customer_id: data.customer_id ?? null,
              ...totals,
              ...happened,
              created_at: at,
            }),
            priced(data.items),
            claimed.complete,
          ),
        { atomic: true },
      );
      return order;
    },

    /** Changes an open order; new items replace the old ones and the totals follow. */
    async update(caller: Caller, id: string, input: unknown) {
      const patch = parseInput(orderUpdate, input);
      const customerId = patch.customer_id;
      const checkCustomer = async (order: OrderRow) => {
        if (customerId && customerId !== order.customer_id)
          await customers.requireAttachable(order.merchant_id, customerId);
      };
      return change(caller, id, (order) => editedOrder(order, patch), checkCustomer);
    },

    /** Cancels an open order; a billed one is given back by cancelling its bill first. */
    cancel: (caller: Caller, id: string) =>
      change(caller, id, (order) => ({
        data: { status: orderMachine.transition(order.status, "cancel"), cancelled_at: clock() },
      })),
  };
}
