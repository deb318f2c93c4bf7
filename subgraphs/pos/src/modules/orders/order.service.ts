import {
  type Caller,
  countsPerStore,
  type PageArgs,
  parseCursorPage,
  parseInput,
  type ReachableStore,
} from "@pos-cloud/common";
import type { SaleTimes } from "../../sale-time";
import type { CustomerService } from "../customers";
import type { StoreIdempotency } from "../idempotency";
import { type ListArguments, parseListArguments } from "../list-arguments";
import { findInStore, type StoreAccess } from "../stores";
import { orderFilter, purchaseHistoryFilter } from "./order.inputs";
import type { OrderRepository, OrderRow } from "./order.repository";
import { readableOrder } from "./order-access.service";
import { orderBilling } from "./order-billing.service";
import { orderChanges } from "./order-changes.service";

export type OrderService = ReturnType<typeof orderService>;

/** Orders still on the floor: not yet completed or cancelled. */
const unfinished = ["open", "billed"];

/** Midnight in Asia/Tokyo (UTC+9, no daylight saving) that starts a business day, YYYY-MM-DD. */
const startOfBusinessDay = (day: string) => new Date(`${day}T00:00:00+09:00`);
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Orders: read here; taken, changed and cancelled by `orderChanges`; billed, reopened and completed by their bills
 * through `orderBilling`.
 */
export function orderService(
  orders: OrderRepository,
  access: StoreAccess,
  clock: () => Date,
  customers: Pick<CustomerService, "requireAttachable" | "readable">,
  saleTime: SaleTimes,
  keys: StoreIdempotency,
) {
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
      return findInStore(store, "order", id, orders.find);
    },

    async list(caller: Caller, args: ListArguments) {
      const { filter, page, scope } = await parseListArguments(access, caller, orderFilter, args);
      return orders.list(scope, filter, page);
    },

    get: (caller: Caller, id: string) => readableOrder(orders, access, caller, id),

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

    ...orderChanges(orders, access, clock, saleTime, customers, keys),
    ...orderBilling(orders),
  };
}
