import { type Caller, dayToRead, dayWindow, parseInput, STORE_TIME_ZONE } from "@pos-cloud/common";
import type { StoreScope } from "../../list-scope";
import { givenArguments } from "../list-arguments";
import { PAYMENT_SCOPE } from "../payments";
import type { StoreAccess, StorePlace } from "../stores";
import { dayCsv } from "./card-files.format";
import { storeDayQuery } from "./settlement.inputs";
import { type PresentedSettlement, summarize } from "./settlement.presenter";
import type { CountedDay, CountedGroup, SettlementRepository, SettlementRow } from "./settlement.repository";
import { requireManagerTier } from "./settlement-access.service";

/** What `day` answers that its CSV is made from: the day counted, and its settlement if it has one. */
export interface DayRead {
  counted: CountedDay;
  settlement: { id: string; status: string } | null;
}

/** A store's business day: what it counts, as CSV too, and the stores that had one. */
export function settlementDays(
  settlements: SettlementRepository,
  access: StoreAccess,
  clock: () => Date,
  present: (row: SettlementRow) => Promise<PresentedSettlement>,
) {
  /** What a store's day counts, as `day` shows it: recorded at its close, or counted now while open or unsettled. */
  async function countedGroups(store: StorePlace, date: string): Promise<CountedGroup[]> {
    const row = await settlements.findDay(store.storeId, date);
    if (row?.status === "closed") return (await settlements.countedAtClose([row.id])).get(row.id) ?? [];
    const { start, end } = dayWindow(date, STORE_TIME_ZONE);
    return settlements.countedNow(
      row ?? {
        store_id: store.storeId,
        merchant_id: store.merchantId,
        business_date: date,
        window_start: start,
        window_end: end,
      },
    );
  }

  return {
    /**
     * The day `date` of every store of a scope, summed: each store's day counted as `day` counts it, so the sum can
     * never disagree with the stores' days. The caller's reach was checked by whoever built the scope.
     */
    async scopeDay(scope: StoreScope, date: string) {
      const { start, end } = dayWindow(date, STORE_TIME_ZONE);
      const stores = await settlements.scopeStoresWithSales(scope, date, start, end);
      const groups: CountedGroup[] = [];
      for (const store of stores)
        groups.push(...(await countedGroups({ storeId: store.store_id, merchantId: store.merchant_id }, date)));
      return { date, ...summarize(groups) };
    },

    /** A store's day as its settlement counts it, or as one would if it closed now (there is none yet). */
    async day(caller: Caller, args: { store_id?: number | null; date?: string | null }) {
      if (caller.type !== "device") requireManagerTier(caller);
      const query = parseInput(storeDayQuery, givenArguments(args));
      const date = dayToRead(query.date, clock());
      const store = await access.storeFor(caller, query.store_id, PAYMENT_SCOPE);
      const { start, end } = dayWindow(date, STORE_TIME_ZONE);
      const day = { store_id: store.storeId, date, timezone: STORE_TIME_ZONE, starts_at: start, ends_at: end };
      const counted = {
        store_id: store.storeId,
        merchant_id: store.merchantId,
        business_date: date,
        window_start: start,
        window_end: end,
      };
      const row = await settlements.findDay(store.storeId, date);
      const settlement = row && (await present(row));
      const summary = settlement ?? summarize(await settlements.countedNow(counted));
      return { ...summary, ...day, settlement, counted };
    },

    /** The day `day` read, as CSV: what its closed settlement recorded, or what it counts now. */
    dayCsv: async (day: DayRead) =>
      dayCsv(
        await settlements.entries(day.counted, day.settlement?.status === "closed" ? day.settlement.id : null),
        STORE_TIME_ZONE,
      ),

    /** For the accounting export: the stores with a payment or refund completed on a day, whatever its method. */
    storesWithSales: async (date: string): Promise<StorePlace[]> => {
      const { start, end } = dayWindow(date, STORE_TIME_ZONE);
      return (await settlements.storesWithSales(start, end)).map((row) => ({
        storeId: row.store_id,
        merchantId: row.merchant_id,
      }));
    },

    /** For the card exchange: the stores with card activity on a day, or a settlement of it. */
    storesOfDay: async (date: string): Promise<StorePlace[]> => {
      const { start, end } = dayWindow(date, STORE_TIME_ZONE);
      return (await settlements.storesOfDay(date, start, end)).map((row) => ({
        storeId: row.store_id,
        merchantId: row.merchant_id,
      }));
    },
  };
}
