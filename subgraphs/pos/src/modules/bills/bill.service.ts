import {
  type Caller,
  idempotencyRequest,
  mapPage,
  parseInput,
  type ReachableStore,
  requireDevice,
} from "@pos-cloud/common";
import { nextDailyNumber } from "../../daily-number";
import { billTotals } from "../../money";
import type { PaymentsInFlight } from "../../payments-in-flight";
import type { SaleTimes } from "../../sale-time";
import type { StoreIdempotency } from "../idempotency";
import { type ListArguments, parseListArguments } from "../list-arguments";
import type { OrderService } from "../orders";
import { findInStore, type StoreAccess } from "../stores";
import { billCreate, billFilter } from "./bill.inputs";
import { billMachine } from "./bill.machine";
import { presentBill } from "./bill.presenter";
import type { BillRepository } from "./bill.repository";
import { BILL_SCOPE, readableBill } from "./bill-access.service";
import { billChanges } from "./bill-changes.service";
import { billPayments } from "./bill-payments.service";

export type BillService = ReturnType<typeof billService>;

/**
 * Bills: made from an order and read here; split, combined and cancelled by `billChanges`; paid and refunded by POS
 * payments through `billPayments`.
 */
export function billService(
  bills: BillRepository,
  orders: OrderService,
  access: StoreAccess,
  clock: () => Date,
  inFlight: PaymentsInFlight,
  saleTime: SaleTimes,
  keys: StoreIdempotency,
) {
  return {
    /**
     * Bills an open order: amounts from its items, discount and the tax rate (rounded down once per bill); the
     * order becomes billed in the same transaction, so two bills of one order cannot both be made. An
     * Idempotency-Key (per store, 24 hours) answers the first bill again.
     */
    async create(caller: Caller, input: unknown, key?: string | null) {
      const data = parseInput(billCreate, input);
      if (caller.type === "device") requireDevice(caller, { scope: BILL_SCOPE });
      const at = clock();
      const happened = saleTime(data.occurred_at, at);
      const order = await orders.get(caller, data.order_id);
      const staff = await access.staffMember({ storeId: order.store_id }, data.staff_code);
      const request = idempotencyRequest(key, "createBill", { input: data });
      const { replayed: _, ...bill } = await keys.run(
        order.store_id,
        request,
        (claimed) =>
          bills.transaction(async (tx) => {
            const locked = await orders.lockForBilling(tx, order.id);
            const totals = billTotals(locked, data.tax_percentage);
            const made = await bills.create(tx, {
              merchant_id: locked.merchant_id,
              store_id: locked.store_id,
              order_id: locked.id,
              bill_number: await nextDailyNumber(tx, locked.store_id, "bill", happened.occurred_at),
              staff_code: staff.login_id,
              customer_id: locked.customer_id,
              tax_percentage: data.tax_percentage,
              ...totals,
              // Nothing to pay (free items, a full discount): the bill is paid as it is made.
              ...(totals.total_amount === 0
                ? { status: billMachine.transition("pending", "pay_in_full"), paid_at: at }
                : {}),
              table_numbers: locked.table_number ? [locked.table_number] : [],
              ...happened,
              created_at: at,
            });
            await orders.markBilled(tx, locked.id, made.id, totals);
            if (made.status === "paid") await orders.completeOfBill(tx, made.id, at);
            const presented = presentBill(made);
            await claimed.complete(tx, presented);
            return presented;
          }),
        { atomic: true },
      );
      return bill;
    },

    async list(caller: Caller, args: ListArguments) {
      const { filter, page, scope } = await parseListArguments(access, caller, billFilter, args);
      return mapPage(await bills.list(scope, filter, page), presentBill);
    },

    get: async (caller: Caller, id: string) => presentBill(await readableBill(bills, access, caller, id)),

    /** A bill of a store already checked against the caller (`Store.bill`), under the store's merchant. */
    async inStore(store: ReachableStore, id: string) {
      return presentBill(await findInStore(store, "bill", id, bills.find));
    },

    ...billChanges(bills, orders, access, clock, inFlight),
    ...billPayments(bills, orders, clock),
    transaction: bills.transaction,
  };
}
