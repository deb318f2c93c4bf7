import {
  type Caller,
  countsPerStore,
  invalidField,
  notFound,
  type PageArgs,
  parseCursorPage,
  parseInput,
  requireDevice,
  storeReferenceLoader,
} from "@pos-cloud/common";
import { nextDailyNumber } from "../../daily-number";
import { itemSubtotal, orderTotals, type Totals } from "../../money";
import { isUuid } from "../../uuid";
import type { StoreAccess } from "../stores/store-access.service";
import { orderCreate, orderFilter, orderUpdate } from "./order.inputs";
import { requireOrderMove } from "./order.lifecycle";
import { lockOrder, type OrderRepository, type OrderRow, type Tx } from "./order.repository";

export type OrderService = ReturnType<typeof orderService>;

/** Orders still on the floor: not yet completed or cancelled. */
const unfinished = ["open", "billed"];

/** The device token scope that lets a terminal take and change orders. */
export const ORDER_SCOPE = "order:create";

const priced = (items: { sequence: number; item_name: string; quantity: number; unit_price: number }[]) =>
  items.map((item) => ({ ...item, subtotal: itemSubtotal(item) }));

export function orderService(orders: OrderRepository, access: StoreAccess, clock: () => Date) {
  async function readable(caller: Caller, id: string): Promise<OrderRow> {
    const order = isUuid(id) ? await orders.find(id) : null;
    if (!order) throw notFound("order");
    await access.requireRow(caller, order, "order");
    return order;
  }

  /** An order the caller may change: a device needs the order scope on its token. */
  async function writable(caller: Caller, id: string): Promise<OrderRow> {
    if (caller.type === "device") requireDevice(caller, { scope: ORDER_SCOPE });
    return readable(caller, id);
  }

  async function change(caller: Caller, id: string, decide: Parameters<OrderRepository["change"]>[1]) {
    await writable(caller, id);
    const changed = await orders.change(id, decide);
    if (!changed) throw notFound("order");
    return changed;
  }

  return {
    /**
     * One request's Store references (`open_orders_count` of every store of a hierarchy) in one statement. Each store
     * is checked against the caller first; its orders count only under the merchant the portal placed it in, so a
     * reference naming another merchant finds none.
     */
    storeLoader: (caller: Caller) =>
      storeReferenceLoader(caller, async (stores) => {
        const countOf = countsPerStore(
          await orders.countByStores(
            stores.map((store) => store.id),
            unfinished,
          ),
        );
        return stores.map((store) => ({ id: store.id, open_orders_count: countOf(store) }));
      }),

    /** A new open order with its totals computed here; `order_number` is the store's next of the business day. */
    async create(caller: Caller, input: unknown) {
      const data = parseInput(orderCreate, input);
      const store = await access.storeFor(caller, data.store_id, ORDER_SCOPE);
      const totals = orderTotals(data.items, data.discount_amount ?? 0);
      const at = clock();
      return orders.create(
        async (tx) => ({
          merchant_id: store.merchantId,
          store_id: store.storeId,
          device_id: caller.type === "device" ? caller.id : null,
          order_number: await nextDailyNumber(tx, store.storeId, "order", at),
          order_type: data.order_type,
          table_number: data.table_number ?? null,
          customer_id: data.customer_id ?? null,
          ...totals,
          created_at: at,
        }),
        priced(data.items),
      );
    },

    async list(
      caller: Caller,
      args: { store_id?: number | null; after?: string | null } & PageArgs & Record<string, unknown>,
    ) {
      const { store_id, limit, offset, after, ...filter } = args;
      const parsed = parseInput(
        orderFilter,
        Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== null && value !== undefined)),
      );
      if (parsed.from && parsed.to && parsed.from >= parsed.to)
        throw invalidField("to", "after_from", "to must be after from");
      const page = parseCursorPage({ limit, offset, after });
      const scope = await access.listScope(caller, store_id ?? undefined);
      return orders.list(scope, parsed, page);
    },

    get: readable,

    /** Changes an open order; new items replace the old ones and the totals follow. */
    async update(caller: Caller, id: string, input: unknown) {
      const patch = parseInput(orderUpdate, input);
      return change(caller, id, (order) => {
        requireOrderMove("edit", order.status);
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
      });
    },

    /** Cancels an open order; a billed one is given back by cancelling its bill first. */
    cancel: (caller: Caller, id: string) =>
      change(caller, id, (order) => ({
        data: { status: requireOrderMove("cancel", order.status).to, cancelled_at: clock() },
      })),

    /** Within a bill's transaction: the order locked, which must be open to be billed. */
    async lockForBilling(tx: Tx, id: string) {
      const order = await lockOrder(tx, id);
      if (!order) throw notFound("order");
      requireOrderMove("bill", order.status);
      return order;
    },
    /** Within a bill's transaction: the order is billed, its tax and total those of the bill. */
    markBilled: (tx: Tx, id: string, billId: string, totals: Totals) =>
      orders.update(tx, id, { status: requireOrderMove("bill", "open").to, bill_id: billId, ...totals }),
    /** Within a cancelled bill's transaction: its orders are open again, without tax, to be changed or billed anew. */
    reopenOfBill: (tx: Tx, billId: string) => {
      const { from, to } = requireOrderMove("reopen", "billed");
      return orders.reopenOfBill(tx, billId, [...from], to);
    },
    /** Within the transaction that paid a bill in full: its orders are completed. */
    completeOfBill: (tx: Tx, billId: string, at: Date) =>
      orders.moveOfBill(tx, billId, ["billed"], {
        status: requireOrderMove("complete", "billed").to,
        completed_at: at,
      }),
    /** Within a combine's transaction: the source bills' orders now belong to the combined bill. */
    rebill: (tx: Tx, fromBillIds: string[], toBillId: string) => orders.rebill(tx, fromBillIds, toBillId),
    itemsOfBill: (tx: Tx, billId: string) => orders.itemsOfBill(tx, billId),
  };
}
