import {
  type Caller,
  countsPerStore,
  invalidField,
  isUuid,
  notFound,
  type PageArgs,
  parseCursorPage,
  parseInput,
  type ReachableStore,
  requireDevice,
} from "@pos-cloud/common";
import { nextDailyNumber } from "../../daily-number";
import { itemSubtotal, orderTotals, type Totals } from "../../money";
import type { CustomerService } from "../customers/customer.service";
import { type ListArguments, parseListArguments } from "../list-arguments";
import type { StoreAccess } from "../stores/store-access.service";
import { orderCreate, orderFilter, orderUpdate, purchaseHistoryFilter } from "./order.inputs";
import { orderMachine } from "./order.machine";
import { lockOrder, type OrderRepository, type OrderRow, type Tx } from "./order.repository";

export type OrderService = ReturnType<typeof orderService>;

/** Orders still on the floor: not yet completed or cancelled. */
const unfinished = ["open", "billed"];

/** The device token scope that lets a terminal take and change orders. */
export const ORDER_SCOPE = "order:create";

const priced = (items: { sequence: number; item_name: string; quantity: number; unit_price: number }[]) =>
  items.map((item) => ({ ...item, subtotal: itemSubtotal(item) }));

/** Midnight in Asia/Tokyo (UTC+9, no daylight saving) that starts a business day, YYYY-MM-DD. */
const startOfBusinessDay = (day: string) => new Date(`${day}T00:00:00+09:00`);
const DAY_MS = 24 * 60 * 60 * 1000;

export function orderService(
  orders: OrderRepository,
  access: StoreAccess,
  clock: () => Date,
  customers: Pick<CustomerService, "requireAttachable" | "readable">,
) {
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

  async function change(
    caller: Caller,
    id: string,
    decide: Parameters<OrderRepository["change"]>[1],
    check?: (order: OrderRow) => Promise<void>,
  ) {
    // Not `check?.(await writable(...))`: optional chaining skips the arguments too, and with them the caller's check.
    const order = await writable(caller, id);
    await check?.(order);
    const changed = await orders.change(id, decide);
    if (!changed) throw notFound("order");
    return changed;
  }

  return {
    /**
     * `open_orders_count` of many stores (every store of a hierarchy) in one statement, for stores already checked
     * against the caller; orders count only under the merchant the portal placed the store in, so a reference naming
     * another merchant finds none.
     */
    openOrderCounts: async (stores: ReachableStore[]) =>
      countsPerStore(
        await orders.countByStores(
          stores.map((store) => store.id),
          unfinished,
        ),
      ),

    /** An order of a store already checked against the caller (`Store.order`), under the store's merchant. */
    async inStore(store: ReachableStore, id: string): Promise<OrderRow> {
      const order = isUuid(id) ? await orders.find(id) : null;
      if (!order || order.store_id !== store.id || order.merchant_id !== store.merchantId) throw notFound("order");
      return order;
    },

    /** A new open order with its totals computed here; `order_number` is the store's next of the business day. */
    async create(caller: Caller, input: unknown) {
      const data = parseInput(orderCreate, input);
      const store = await access.storeFor(caller, data.store_id, ORDER_SCOPE);
      if (data.customer_id) await customers.requireAttachable(store.merchantId, data.customer_id);
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

    async list(caller: Caller, args: ListArguments) {
      const { filter, page, scope } = await parseListArguments(access, caller, orderFilter, args);
      return orders.list(scope, filter, page);
    },

    get: readable,

    /** Changes an open order; new items replace the old ones and the totals follow. */
    async update(caller: Caller, id: string, input: unknown) {
      const patch = parseInput(orderUpdate, input);
      const customerId = patch.customer_id;
      const checkCustomer = async (order: OrderRow) => {
        if (customerId && customerId !== order.customer_id)
          await customers.requireAttachable(order.merchant_id, customerId);
      };
      return change(
        caller,
        id,
        (order) => {
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
        },
        checkCustomer,
      );
    },

    /**
     * A customer's purchase history: its orders at every store of the merchant, newest first, taken between two
     * business days (both included). The customer is checked first (Store Manager and above; another merchant's is
     * not found).
     */
    async ofCustomer(
      caller: Caller,
      customerId: string,
      args: { start_date?: string | null; end_date?: string | null; after?: string | null } & PageArgs,
    ) {
      const customer = await customers.readable(caller, customerId);
      const { start_date, end_date, limit, offset, after } = args;
      const range = parseInput(purchaseHistoryFilter, {
        start_date: start_date ?? undefined,
        end_date: end_date ?? undefined,
      });
      const page = parseCursorPage({ limit, offset, after });
      return orders.listOfCustomer(
        { merchant_id: customer.merchant_id, customer_id: customer.id },
        {
          from: range.start_date ? startOfBusinessDay(range.start_date) : undefined,
          to: range.end_date ? new Date(startOfBusinessDay(range.end_date).getTime() + DAY_MS) : undefined,
        },
        page,
      );
    },

    /** Cancels an open order; a billed one is given back by cancelling its bill first. */
    cancel: (caller: Caller, id: string) =>
      change(caller, id, (order) => ({
        data: { status: orderMachine.transition(order.status, "cancel"), cancelled_at: clock() },
      })),

    /** Within a bill's transaction: the order locked, which must be open to be billed. */
    async lockForBilling(tx: Tx, id: string) {
      const order = await lockOrder(tx, id);
      if (!order) throw notFound("order");
      orderMachine.transition(order.status, "bill");
      return order;
    },
    /** Within a bill's transaction: the order is billed, its tax and total those of the bill. */
    markBilled: (tx: Tx, id: string, billId: string, totals: Totals) =>
      orders.update(tx, id, { status: orderMachine.transition("open", "bill"), bill_id: billId, ...totals }),
    /** Within a cancelled bill's transaction: its orders are open again, without tax, to be changed or billed anew. */
    reopenOfBill: (tx: Tx, billId: string) =>
      orders.reopenOfBill(tx, billId, orderMachine.fromStates("reopen"), orderMachine.target("reopen").to),
    /** Within the transaction that paid a bill in full: its orders are completed. */
    completeOfBill: (tx: Tx, billId: string, at: Date) =>
      orders.moveOfBill(tx, billId, orderMachine.fromStates("complete"), {
        status: orderMachine.target("complete").to,
        completed_at: at,
      }),
    /** Within a combine's transaction: the source bills' orders now belong to the combined bill. */
    rebill: (tx: Tx, fromBillIds: string[], toBillId: string) => orders.rebill(tx, fromBillIds, toBillId),
    itemsOfBill: (tx: Tx, billId: string) => orders.itemsOfBill(tx, billId),
  };
}
