import { AppError, type Caller, invalidField, notFound, parseInput } from "@pos-cloud/common";
import { nextDailyNumber } from "../../daily-number";
import { itemSubtotal, type PricedItem, proportionalShares, sumTotals } from "../../money";
import type { PaymentsInFlight } from "../../payments-in-flight";
import type { OrderService } from "../orders";
import type { StoreAccess } from "../stores";
import { billCombine, billSplit } from "./bill.inputs";
import { type BillEvent, requireBillMove } from "./bill.machine";
import { presentBill } from "./bill.presenter";
import type { BillRepository, BillRow, Tx } from "./bill.repository";
import { BILL_SCOPE, writableBill } from "./bill-access.service";

type SplitPart = { amount?: number; item_ids?: string[] };

/** Split parts by amount: as given, adding up to the bill's total. */
function amountSplits(bill: BillRow, parts: SplitPart[]) {
  const amounts = parts.map((part) => part.amount!);
  if (amounts.reduce((sum, amount) => sum + amount, 0) !== bill.total_amount)
    throw invalidField("splits", "sum", `the split amounts must add up to the bill's total, ${bill.total_amount}`);
  return amounts.map((amount) => ({ amount, item_ids: [] as string[] }));
}

/** Split parts by items: each item of the bill in one part, each part's amount its items' share of the total. */
function itemSplits(bill: BillRow, parts: SplitPart[], billItems: (PricedItem & { id: string })[]) {
  const items = new Map(billItems.map((item) => [item.id, item]));
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

/** The bills to combine must cover every table asked for, and be two at least. */
function requireCombinable(sources: BillRow[], tableNumbers: string[]) {
  const missing = tableNumbers.find((table) => !sources.some((b) => b.table_numbers.includes(table)));
  if (missing !== undefined)
    throw new AppError("invalid_state", `table ${missing} has no unpaid, unsplit bill to combine`, {
      field: "table_numbers",
      table_number: missing,
    });
  if (sources.length < 2)
    throw new AppError("invalid_state", "these tables have one bill: nothing to combine", {
      field: "table_numbers",
    });
}

/** What a combined bill takes of its sources: their tables and totals, their tax rate and customer when shared. */
function combinedFrom(sources: BillRow[]) {
  const tables = [...new Set(sources.flatMap((bill) => bill.table_numbers))];
  const rates = new Set(sources.map((bill) => bill.tax_percentage));
  // The combined bill is a customer's only when every source bill was that customer's.
  const customers = new Set(sources.map((bill) => bill.customer_id));
  return {
    tax_percentage: rates.size === 1 ? [...rates][0] : null,
    customer_id: customers.size === 1 ? [...customers][0] : null,
    ...sumTotals(sources),
    is_combined: true,
    table_numbers: tables,
    combined_bill_ids: sources.map((bill) => bill.id),
    combined_table_numbers: tables,
  };
}

/** The changes of bills nothing was paid on: splitting one, combining several, cancelling one. */
export function billChanges(
  bills: BillRepository,
  orders: OrderService,
  access: StoreAccess,
  clock: () => Date,
  inFlight: PaymentsInFlight,
) {
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
    await writableBill(bills, access, caller, id);
    return bills.transaction(async (tx) => {
      await inFlight.lockBill(tx, id);
      const bill = await bills.lock(tx, id);
      if (!bill) throw notFound("bill");
      requireBillMove(move, bill);
      await inFlight.requireNone(tx, { bill_ids: [id] }, `${move} the bill`);
      return work(tx, bill);
    });
  }

  return {
    /** Splits a bill nothing was paid on, once: by amounts adding up to its total, or by its items. */
    async split(caller: Caller, id: string, input: unknown) {
      const { splits } = parseInput(billSplit, input);
      return presentBill(
        await endLocked(caller, id, "split", async (tx, bill) => {
          if (bill.is_split) throw new AppError("invalid_state", "the bill is split already", { status: bill.status });
          const parts =
            splits[0]?.amount !== undefined
              ? amountSplits(bill, splits)
              : itemSplits(bill, splits, await orders.itemsOfBill(tx, bill.id));
          await bills.createSplits(tx, bill.id, parts);
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
          requireCombinable(sources, data.table_numbers);
          const ids = sources.map((bill) => bill.id);
          await inFlight.requireNone(tx, { bill_ids: ids }, "combine the bills");
          const combined = await bills.create(tx, {
            ...place,
            bill_number: await nextDailyNumber(tx, store.storeId, "bill", at),
            staff_code: staff.login_id,
            ...combinedFrom(sources),
            created_at: at,
          });
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
  };
}
