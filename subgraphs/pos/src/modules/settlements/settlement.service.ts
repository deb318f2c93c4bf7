import { randomUUID } from "node:crypto";
import {
  AppError,
  type Caller,
  forbidden,
  invalidField,
  isRole,
  isUuid,
  mapPage,
  notFound,
  type PageArgs,
  parseInput,
  parsePage,
  requireCaller,
  requireDevice,
  roles,
  tierOf,
} from "@pos-cloud/common";
import { givenArguments } from "../list-arguments";
import { PAYMENT_SCOPE } from "../payments/payment.service";
import type { PaymentsInFlight } from "../payments/payments-in-flight";
import type { StoreAccess, StorePlace } from "../stores/store-access.service";
import { businessDateOf, dayWindow, STORE_TIME_ZONE } from "./business-day";
import type { CardExchangeRepository } from "./card-exchange.repository";
import { dayCsv } from "./card-files";
import { settlementClose, settlementCreate, settlementFilter, storeDayQuery } from "./settlement.inputs";
import { settlementMachine } from "./settlement.machine";
import { presentSettlement, summarize } from "./settlement.presenter";
import {
  type CountedDay,
  LOOKBACK_MS,
  type SettlementRepository,
  type SettlementRow,
  type Tx,
} from "./settlement.repository";

export type SettlementService = ReturnType<typeof settlementService>;

/** What `day` answers that its CSV is made from: the day counted, and its settlement if it has one. */
export interface DayRead {
  counted: CountedDay;
  settlement: { id: string; status: string } | null;
}

/** Who closes a day the nightly card exchange found open (or created). */
export const SYSTEM_ACTOR = "system";

/** Settlements are a store manager's: users of tier L4 and above; terminals for one, by the manager's staff code. */
function requireManagerTier(caller: Caller) {
  requireCaller(caller);
  const tier = tierOf(caller);
  if (tier === undefined || tier > roles.STORE_MANAGER)
    throw forbidden("settlements are for store managers (L4) and above");
}

export function settlementService(
  settlements: SettlementRepository,
  exchanges: CardExchangeRepository,
  access: StoreAccess,
  clock: () => Date,
  inFlight: PaymentsInFlight,
) {
  /** A staff code of the store's manager or above (L4), else 400 (not staff of the store) or 403 (below L4). */
  async function requireManagerCode(store: StorePlace, staffCode: string) {
    const staff = await access.staffMember(store, staffCode);
    if (!isRole(staff.role) || roles[staff.role] > roles.STORE_MANAGER)
      throw new AppError("forbidden", "a settlement needs the staff code of a store manager (L4) or above", {
        field: "staff_code",
        constraint: "store_manager",
      });
    return staff.login_id;
  }

  /** Who acts, in which store: a terminal with a manager's staff code, or a user of tier L4 and above. */
  async function actorFor(caller: Caller, storeId: number | undefined, staffCode: string | undefined) {
    if (caller.type === "device") {
      requireDevice(caller, { scope: PAYMENT_SCOPE });
      const store = await access.storeFor(caller, storeId, PAYMENT_SCOPE);
      if (staffCode === undefined)
        throw invalidField(
          "staff_code",
          "required",
          "a terminal gives the staff code of a store manager (L4) or above",
        );
      return { store, by: `device:${caller.id}`, staff_code: await requireManagerCode(store, staffCode) };
    }
    requireManagerTier(caller);
    const store = await access.storeFor(caller, storeId, PAYMENT_SCOPE);
    const staff_code = staffCode === undefined ? null : await requireManagerCode(store, staffCode);
    return { store, by: `user:${caller.id}`, staff_code };
  }

  /** A settlement the caller may read: a terminal of its store, or a user of tier L4 and above who reaches it. */
  async function readable(caller: Caller, id: string): Promise<SettlementRow> {
    if (caller.type !== "device") requireManagerTier(caller);
    const row = isUuid(id) ? await settlements.find(id) : null;
    if (!row) throw notFound("settlement");
    await access.requireRow(caller, row, "settlement");
    return row;
  }

  /** Settlements with their totals: counted at close, or what they would count now while open. */
  async function present(rows: SettlementRow[]) {
    const ids = rows.map((row) => row.id);
    const [closed, cards] = await Promise.all([
      settlements.countedAtClose(rows.filter((row) => row.status === "closed").map((row) => row.id)),
      exchanges.findMany(ids),
    ]);
    return Promise.all(
      rows.map(async (row) =>
        presentSettlement(
          row,
          row.status === "closed" ? (closed.get(row.id) ?? []) : await settlements.countedNow(row),
          cards.find((card) => card.settlement_id === row.id),
        ),
      ),
    );
  }
  const presentOne = async (row: SettlementRow) => (await present([row]))[0]!;

  /**
   * Closes an open settlement under its row lock; a closed one is 409, and so is a day with a payment in flight, but
   * for the system: its nightly close takes the day as it is, and a payment completed later goes forward.
   */
  async function closeLocked(tx: Tx, id: string, by: string, staffCode: string | null) {
    const locked = await settlements.lock(tx, id);
    settlementMachine.transition(locked.status, "close");
    if (by !== SYSTEM_ACTOR)
      await inFlight.requireNone(
        tx,
        {
          store_id: locked.store_id,
          from: new Date(locked.window_start.getTime() - LOOKBACK_MS),
          to: locked.window_end,
        },
        "close the settlement",
      );
    return settlements.close(tx, locked, { closed_at: clock(), closed_by: by, closed_staff_code: staffCode });
  }

  /** A new open settlement of a store's day (closed at once with `close`); false when the day has one. */
  async function open(
    tx: Tx,
    store: StorePlace,
    date: string,
    autoClose: boolean,
    by: string,
    staffCode: string | null,
  ) {
    const { start, end } = dayWindow(date, STORE_TIME_ZONE);
    const id = randomUUID();
    const made = await settlements.insert(tx, {
      id,
      merchant_id: store.merchantId,
      store_id: store.storeId,
      business_date: date,
      timezone: STORE_TIME_ZONE,
      window_start: start,
      window_end: end,
      auto_close: autoClose,
      created_by: by,
      staff_code: staffCode,
      created_at: clock(),
    });
    if (made && autoClose) await closeLocked(tx, id, by, staffCode);
    return made;
  }

  return {
    /**
     * Settles a store's business day (today or before, in the store's time zone): 201 with what it counts so far per
     * method; `auto_close` closes it at once. One settlement per store and day: a second is 409 naming the first.
     */
    async create(caller: Caller, input: unknown) {
      const data = parseInput(settlementCreate, input);
      const actor = await actorFor(caller, data.store_id, data.staff_code);
      if (data.date > businessDateOf(clock(), STORE_TIME_ZONE))
        throw invalidField("date", "not_future", "a business day that has not begun cannot be settled");
      const made = await settlements.transaction((tx) =>
        open(tx, actor.store, data.date, data.auto_close ?? false, actor.by, actor.staff_code),
      );
      const row = await settlements.findDay(actor.store.storeId, data.date);
      if (!made)
        throw new AppError("conflict", `the store's ${data.date} has a settlement already`, {
          field: "date",
          settlement_id: row?.id,
        });
      return presentOne(row!);
    },

    /** Closes an open settlement: what it counts is recorded and never changes; a payment after it goes forward. */
    async close(caller: Caller, id: string, input: unknown) {
      const data = parseInput(settlementClose, input ?? {});
      const row = await readable(caller, id);
      const actor = await actorFor(caller, row.store_id, data.staff_code);
      const closed = await settlements.transaction((tx) => closeLocked(tx, row.id, actor.by, actor.staff_code));
      return presentOne(closed);
    },

    get: async (caller: Caller, id: string) => presentOne(await readable(caller, id)),

    /** A store's day as its settlement counts it, or as one would if it closed now (there is none yet). */
    async day(caller: Caller, args: { store_id?: number | null; date?: string | null }) {
      if (caller.type !== "device") requireManagerTier(caller);
      const query = parseInput(storeDayQuery, givenArguments(args));
      const date = query.date ?? businessDateOf(clock(), STORE_TIME_ZONE);
      if (date > businessDateOf(clock(), STORE_TIME_ZONE))
        throw invalidField("date", "not_future", "a business day that has not begun has no payments");
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
      const settlement = row && (await presentOne(row));
      const summary = settlement ?? summarize(await settlements.countedNow(counted));
      return { ...summary, ...day, settlement, counted };
    },

    /** The day `day` read, as CSV: what its closed settlement recorded, or what it counts now. */
    dayCsv: async (day: DayRead) =>
      dayCsv(
        await settlements.entries(day.counted, day.settlement?.status === "closed" ? day.settlement.id : null),
        STORE_TIME_ZONE,
      ),

    async list(
      caller: Caller,
      args: {
        store_id?: number | null;
        start_date?: string | null;
        end_date?: string | null;
        status?: string | null;
      } & PageArgs,
    ) {
      if (caller.type !== "device") requireManagerTier(caller);
      const { store_id, limit, offset, ...filter } = args;
      const parsed = parseInput(settlementFilter, givenArguments(filter));
      const page = parsePage({ limit, offset });
      const scope = await access.listScope(caller, store_id ?? undefined);
      const rows = await settlements.list(scope, parsed, page);
      const presented = await present(rows.nodes);
      return mapPage(rows, (row) => presented.find((p) => p.id === row.id)!);
    },

    /**
     * For the card exchange: the store's day closed, as the system. A day without a settlement gets one; an open one
     * is closed (the day is over; what comes later goes forward). Concurrent workers end with the same closed row.
     */
    async closeDay(store: StorePlace, date: string) {
      const existing = await settlements.findDay(store.storeId, date);
      if (!existing) await settlements.transaction((tx) => open(tx, store, date, true, SYSTEM_ACTOR, null));
      const row = (await settlements.findDay(store.storeId, date))!;
      if (row.status === "open")
        await settlements
          .transaction((tx) => closeLocked(tx, row.id, SYSTEM_ACTOR, null))
          .catch((error: unknown) => {
            if (!(error instanceof AppError && error.code === "invalid_state")) throw error;
          });
      return (await settlements.findDay(store.storeId, date))!;
    },

    /** For the card exchange: the stores with card activity on a day, or a settlement of it. */
    storesOfDay: async (date: string): Promise<StorePlace[]> => {
      const { start, end } = dayWindow(date, STORE_TIME_ZONE);
      return (await settlements.storesOfDay(date, start, end)).map((row) => ({
        storeId: row.store_id,
        merchantId: row.merchant_id,
      }));
    },

    present: presentOne,
  };
}
