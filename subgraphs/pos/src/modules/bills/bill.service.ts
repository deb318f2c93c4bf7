import {
  AppError,
  type Caller,
  invalidField,
  isUuid,
  mapPage,
  notFound,
  parseInput,
  type ReachableStore,
  requireDevice,
} from "@pos-cloud/common";
import { nextDailyNumber } from "../../daily-number";
import { billTotals, itemSubtotal, proportionalShares, sumTotals } from "../../money";
import { type ListArguments, parseListArguments } from "../list-arguments";
import type { OrderService } from "../orders/order.service";
import type { PaymentsInFlight } from "../payments/payments-in-flight";
import type { StoreAccess } from "../stores/store-access.service";
import { billCombine, billCreate, billFilter, billSplit, type PaymentToApply } from "./bill.inputs";
import { type BillEvent, billMachine, paymentEvent, refundEvent, requireBillMove } from "./bill.machine";
import { presentBill } from "./bill.presenter";
import type { BillRepository, BillRow, Tx } from "./bill.repository";

export type BillService = ReturnType<typeof billService>;

/** The device token scope that lets a terminal make, split, combine and cancel bills. */
export const BILL_SCOPE = "bill:create";

export function billService(
  bills: BillRepository,
  orders: OrderService,
  access: StoreAccess,
  clock: () => Date,
  inFlight: PaymentsInFlight,
) {
  async function readable(caller: Caller, id: string): Promise<BillRow> {
    const bill = isUuid(id) ? await bills.find(id) : null;
    if (!bill) throw notFound("bill");
    await access.requireRow(caller, bill, "bill");
    return bill;
  }

  async function writable(caller: Caller, id: string): Promise<BillRow> {
    if (caller.type === "device") requireDevice(caller, { scope: BILL_SCOPE });
    return readable(caller, id);
  }

  /**
   * Ends (cancels or splits) the bill, locked, with `work`; it was read and checked against the caller first. Refused
   * while a payment of it is in flight, checked under the bill's payment lock so none can start meanwhile.
   */
  async function endLocked<T>(
    caller: Caller,
    id: string,
    move: BillEvent,
    work: (tx: Tx, bill: BillRow) => Promise<T>,
  ) {
    await writable(caller, id);
    return bills.transaction(async (tx) => {
      await inFlight.lockBill(tx, id);
      const bill = await bills.lock(tx, id);
      if (!bill) throw notFound("bill");
      requireBillMove(move, bill);
      await inFlight.requireNone(tx, { bill_ids: [id] }, `${move} the bill`);
      return work(tx, bill);
    });
  }

  /** The split parts' amounts: as given (adding up to the total), or each part's items' share of the total. */
  async function splitAmounts(tx: Tx, bill: BillRow, parts: { amount?: number; item_ids?: string[] }[]) {
    if (parts[0]?.amount !== undefined) {
      const amounts = parts.map((part) => part.amount!);
      if (amounts.reduce((sum, amount) => sum + amount, 0) !== bill.total_amount)
        throw invalidField("splits", "sum", `the split amounts must add up to the bill's total, ${bill.total_amount}`);
      return amounts.map((amount) => ({ amount, item_ids: [] as string[] }));
    }
    const items = new Map((await orders.itemsOfBill(tx, bill.id)).map((item) => [item.id, item]));
    const seen = new Set<string>();
    for (const [i, part] of parts.entries()) {
      for (const [j, id] of part.item_ids!.entries()) {
        const field = `splits.${i}.item_ids.${j}`;
        if (!items.has(id)) throw invalidField(field, "item_of_bill", "not an item of this bill");
        if (seen.has(id)) throw invalidField(field, "once", "an item goes into one split only");
        seen.add(id);
      }
    }
    if (seen.size !== items.size)
      throw invalidField("splits", "every_item", "the splits must cover every item of the bill");
    const weights = parts.map((part) => part.item_ids!.reduce((sum, id) => sum + itemSubtotal(items.get(id)!), 0));
    const amounts = proportionalShares(bill.total_amount, weights);
    const empty = amounts.findIndex((amount) => amount <= 0);
    if (empty >= 0) throw invalidField(`splits.${empty}.item_ids`, "positive", "a split must have something to pay");
    return amounts.map((amount, i) => ({ amount, item_ids: parts[i]!.item_ids! }));
  }

  return {
    /**
     * Bills an open order: amounts from its items, discount and the tax rate (rounded down once per bill); the
     * order becomes billed in the same transaction, so two bills of one order cannot both be made.
     */
    async create(caller: Caller, input: unknown) {
      const data = parseInput(billCreate, input);
      if (caller.type === "device") requireDevice(caller, { scope: BILL_SCOPE });
      const order = await orders.get(caller, data.order_id);
      const staff = await access.staffMember(
        { storeId: order.store_id, merchantId: order.merchant_id },
        data.staff_code,
      );
      const at = clock();
      return presentBill(
        await bills.transaction(async (tx) => {
          const locked = await orders.lockForBilling(tx, order.id);
          const totals = billTotals(locked, data.tax_percentage);
          const bill = await bills.create(tx, {
            merchant_id: locked.merchant_id,
            store_id: locked.store_id,
            order_id: locked.id,
            bill_number: await nextDailyNumber(tx, locked.store_id, "bill", at),
            staff_code: staff.login_id,
            customer_id: locked.customer_id,
            tax_percentage: data.tax_percentage,
            ...totals,
            // Nothing to pay (free items, a full discount): the bill is paid as it is made.
            ...(totals.total_amount === 0
              ? { status: billMachine.transition("pending", "pay_in_full"), paid_at: at }
              : {}),
            table_numbers: locked.table_number ? [locked.table_number] : [],
            created_at: at,
          });
          await orders.markBilled(tx, locked.id, bill.id, totals);
          if (bill.status === "paid") await orders.completeOfBill(tx, bill.id, at);
          return bill;
        }),
      );
    },

    async list(caller: Caller, args: ListArguments) {
      const { filter, page, scope } = await parseListArguments(access, caller, billFilter, args);
      return mapPage(await bills.list(scope, filter, page), presentBill);
    },

    get: async (caller: Caller, id: string) => presentBill(await readable(caller, id)),

    /** A bill of a store already checked against the caller (`Store.bill`), under the store's merchant. */
    async inStore(store: ReachableStore, id: string) {
      const bill = isUuid(id) ? await bills.find(id) : null;
      if (!bill || bill.store_id !== store.id || bill.merchant_id !== store.merchantId) throw notFound("bill");
      return presentBill(bill);
    },

    /** Splits a bill nothing was paid on, once: by amounts adding up to its total, or by its items. */
    async split(caller: Caller, id: string, input: unknown) {
      const { splits } = parseInput(billSplit, input);
      return presentBill(
        await endLocked(caller, id, "split", async (tx, bill) => {
          if (bill.is_split) throw new AppError("invalid_state", "the bill is split already", { status: bill.status });
          await bills.createSplits(tx, bill.id, await splitAmounts(tx, bill, splits));
          return bills.update(tx, bill.id, { is_split: true });
        }),
      );
    },

    /**
     * One new bill for the unpaid bills of the given tables, whose total is their sum; the sources are closed
     * (cancelled, soft-deleted) in the same transaction, under locks taken in id order, so they cannot be paid or
     * combined twice.
     */
    async combine(caller: Caller, input: unknown) {
      const data = parseInput(billCombine, input);
      const store = await access.storeFor(caller, data.store_id, BILL_SCOPE);
      const staff = await access.staffMember(store, data.staff_code);
      const at = clock();
      return presentBill(
        await bills.transaction(async (tx) => {
          const place = { store_id: store.storeId, merchant_id: store.merchantId };
          // The payment locks first, in id order, as payments take them before a bill's row; a bill made for these
          // tables after this read is left out, as if it came a moment later.
          const candidates = await bills.combinable(tx, place, data.table_numbers);
          for (const id of candidates) await inFlight.lockBill(tx, id);
          const sources = await bills.lockCombinable(tx, candidates);
          const missing = data.table_numbers.find((table) => !sources.some((b) => b.table_numbers.includes(table)));
          if (missing !== undefined)
            throw new AppError("invalid_state", `table ${missing} has no unpaid, unsplit bill to combine`, {
              field: "table_numbers",
              table_number: missing,
            });
          if (sources.length < 2)
            throw new AppError("invalid_state", "these tables have one bill: nothing to combine", {
              field: "table_numbers",
            });
          await inFlight.requireNone(tx, { bill_ids: sources.map((bill) => bill.id) }, "combine the bills");
          const tables = [...new Set(sources.flatMap((bill) => bill.table_numbers))];
          const rates = new Set(sources.map((bill) => bill.tax_percentage));
          // The combined bill is a customer's only when every source bill was that customer's.
          const customers = new Set(sources.map((bill) => bill.customer_id));
          const combined = await bills.create(tx, {
            merchant_id: store.merchantId,
            store_id: store.storeId,
            bill_number: await nextDailyNumber(tx, store.storeId, "bill", at),
            staff_code: staff.login_id,
            tax_percentage: rates.size === 1 ? [...rates][0] : null,
            customer_id: customers.size === 1 ? [...customers][0] : null,
            ...sumTotals(sources),
            is_combined: true,
            table_numbers: tables,
            combined_bill_ids: sources.map((bill) => bill.id),
            combined_table_numbers: tables,
            created_at: at,
          });
          const ids = sources.map((bill) => bill.id);
          await bills.closeCombined(tx, ids, combined.id, at);
          await orders.rebill(tx, ids, combined.id);
          return combined;
        }),
      );
    },

    /** Cancels a bill nothing was paid on; its orders are open again. */
    cancel: async (caller: Caller, id: string) =>
      presentBill(
        await endLocked(caller, id, "cancel", async (tx, bill) => {
          await orders.reopenOfBill(tx, bill.id);
          return bills.update(tx, bill.id, { status: requireBillMove("cancel", bill), cancelled_at: clock() });
        }),
      ),

    /**
     * For POS payments, under the bill's payment lock as a payment starts: the bill locked and read again, refused
     * unless it can take a payment (it may have been cancelled, combined or paid since the request read it).
     */
    async payable(tx: Tx, id: string) {
      const bill = await bills.lock(tx, id);
      if (!bill) throw notFound("bill");
      // A bill takes a payment in part wherever it takes one in full.
      requireBillMove("pay_in_part", bill);
      return presentBill(bill);
    },

    /**
     * For POS payments, inside the transaction that records the payment: applies money to a bill (and to the split
     * it names) under a lock on the bill's row, so concurrent payments are checked one after another and never pay
     * more than remains. A split bill is paid split by split. The bill becomes partial, or paid, and then its orders
     * complete. Throws (changing nothing) when the amount does not fit.
     */
    async applyPayment(tx: Tx, payment: PaymentToApply) {
      const bill = await bills.lock(tx, payment.bill_id);
      if (!bill) throw notFound("bill");
      requireBillMove("pay_in_part", bill);
      if (!Number.isSafeInteger(payment.amount) || payment.amount <= 0)
        throw invalidField("amount", "positive", "amount must be a positive integer");
      const remaining = bill.total_amount - bill.paid_amount - bill.refunded_amount;
      if (payment.amount > remaining)
        throw invalidField("amount", "remaining_amount", `at most ${remaining} remains to pay on the bill`);
      const at = clock();
      if (bill.is_split || payment.split_id) {
        const split = bill.splits.find((part) => part.id === payment.split_id);
        if (!split) throw invalidField("split_id", "split_of_bill", "name one split of this bill to pay");
        const left = split.amount - split.paid_amount;
        if (payment.amount > left)
          throw invalidField("amount", "remaining_amount", `at most ${left} remains to pay on the split`);
        const paid = split.paid_amount + payment.amount;
        const status = billMachine.transition(split.status, paymentEvent(paid, split.amount));
        await bills.updateSplit(tx, split.id, { paid_amount: paid, status });
      }
      const paid = bill.paid_amount + payment.amount;
      const status = requireBillMove(paymentEvent(paid, bill.total_amount), bill);
      if (status === "paid") await orders.completeOfBill(tx, bill.id, at);
      return presentBill(
        await bills.update(tx, bill.id, { paid_amount: paid, status, paid_at: status === "paid" ? at : null }),
      );
    },

    /**
     * For POS refunds, inside the transaction that records the refund: gives money back from a bill under its row
     * lock. paid_amount falls by the amount and refunded_amount rises, so what remains to pay does not change; a paid
     * bill left with nothing paid is cancelled. Splits keep what was paid on them.
     */
    async applyRefund(tx: Tx, refund: { bill_id: string; amount: number }) {
      const bill = await bills.lock(tx, refund.bill_id);
      if (!bill) throw notFound("bill");
      requireBillMove("refund_in_part", bill);
      if (refund.amount > bill.paid_amount)
        throw invalidField("refund_amount", "paid_amount", `at most ${bill.paid_amount} was paid on the bill`);
      const paid = bill.paid_amount - refund.amount;
      return presentBill(
        await bills.update(tx, bill.id, {
          paid_amount: paid,
          refunded_amount: bill.refunded_amount + refund.amount,
          status: requireBillMove(refundEvent(paid), bill),
        }),
      );
    },
    transaction: bills.transaction,
  };
}
